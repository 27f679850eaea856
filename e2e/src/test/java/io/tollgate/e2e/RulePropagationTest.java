package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/** A rule written once reaches every gateway: at once through the watch stream, by polling when it is cut. */
class RulePropagationTest {

    private static final Logger LOG = Logger.getLogger(RulePropagationTest.class);
    private static final Duration POLL = Duration.ofSeconds(3);

    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = Stack.withCuttableWatch(3, Map.of("TOLLGATE_RULES_POLL_INTERVAL", POLL.toSeconds() + "s"));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void throughTheWatchStreamEveryGatewayEnforcesANewRuleWithinOneSecond() {
        long written = System.nanoTime();
        stack.putRule("e2e.watched", Rules.perApiKey("e2e.watched", "/watched/**", 5, "1m", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.watched", "/watched/probe", Duration.ofSeconds(1));
        LOG.infof("watch: every gateway enforced the new rule %d ms after the write",
                (System.nanoTime() - written) / 1_000_000);
    }

    @Test
    void withTheWatchStreamCutEveryGatewayEnforcesANewRuleWithinThePollInterval() {
        stack.putRule("e2e.watched", Rules.perApiKey("e2e.watched", "/watched/**", 5, "1m", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.watched", "/watched/probe", Duration.ofSeconds(5));
        stack.watchCutter().cut(true);
        assertThat(stack.watchCutter().cutStreams()).as("every gateway followed the watch stream before the cut")
                .isGreaterThanOrEqualTo(3);
        try {
            long written = System.nanoTime();
            stack.putRule("e2e.polled", Rules.perApiKey("e2e.polled", "/polled/**", 5, "1m", "closed"));
            // a poll may be just under way when the rule is written: one interval plus the request itself
            Fleet.awaitEverywhere(stack, "e2e.polled", "/polled/probe", POLL.plusMillis(500));
            long tookMs = (System.nanoTime() - written) / 1_000_000;
            LOG.infof("poll: every gateway enforced the new rule %d ms after the write", tookMs);
        } finally {
            stack.watchCutter().cut(false);
        }
    }
}
