package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A rule written once reaches every gateway: at once through the watch stream, by polling when it is cut. On the
 * shared stack: the cut ends with the test that made it.
 */
class RulePropagationTest {

    private static final Logger LOG = Logger.getLogger(RulePropagationTest.class);
    private static final Duration POLL = SharedStack.POLL;

    private final Stack stack = SharedStack.get();

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
            // the next test of the shared stack finds every gateway on the watch stream again
            await("every gateway back on the watch stream").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> stack.watchCutter().openStreams() >= stack.gateways().size());
        }
    }
}
