package io.tollgate.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.assertj.core.api.SoftAssertions;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.tollgate.e2e.support.Burst;
import io.tollgate.e2e.support.Fallbacks;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.Metrics;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A burst at the worst moment, on three gateways with the product's default store timeout and the lesson's
 * {@code orders.write} (10 a second, burst 20, failure mode {@code local}): 40 concurrent requests of one key get
 * no more than 20 plus what the bucket refills while they run, when they come right after the rules service
 * died (over the three gateways), and when they hit a gateway the moment it reports ready after a restart
 * from its snapshot. The store is up all along: the restarted gateway must not leave a decision to its failure
 * mode. The steps build on each other (the rules service stays dead), so they run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ColdRestartTest {

    private static final Logger LOG = Logger.getLogger(ColdRestartTest.class);
    private static final String RULE = "orders.write";
    private static final long BURST = 20;
    private static final double PER_SECOND = 10;
    private static final int REQUESTS = 40;

    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = Stack.withProductStoreTimeout(3, Map.of());
        stack.putRule(RULE, Rules.perApiKey(RULE, "/orders/**", 10, "1s", BURST, "local"));
        Fleet.awaitEverywhere(stack, RULE, "/orders/probe", Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void fortyRequestsOverTheFleetRightAfterTheRulesServiceDiedGetNoMoreThanTheBucket() {
        stack.rulesService().kill();
        String key = Fleet.freshKey("orders");
        List<Metrics> before = Metrics.ofEach(stack.gateways());

        Burst.Result result = Burst.send(REQUESTS, REQUESTS, i -> stack.call(i % 3, "POST", "/orders", key));

        List<Fallbacks> fallbacks = Fallbacks.between(stack.gateways(), before, Metrics.ofEach(stack.gateways()), RULE);
        long ceiling = result.ceiling(BURST, PER_SECOND);
        LOG.infof("fleet hit at once: %d POSTs in %d ms: answers %s, allowed %d of at most %d%n  %s", REQUESTS,
                result.elapsed().toMillis(), result.statuses(), result.allowed(), ceiling,
                Fallbacks.lines(fallbacks));

        SoftAssertions softly = new SoftAssertions();
        long counted = Fallbacks.overadmitted(stack.gateways(), before, RULE, result.allowed() - ceiling);
        softly.assertThat(result.allowed())
                .as("allowed in %d ms (burst %d + refill, + %d over-admissions counted)", result.elapsed().toMillis(), BURST,
                        counted)
                .isLessThanOrEqualTo((int) (ceiling + counted));
        softly.assertThat(result.statuses().keySet()).as("answers by status %s", result.statuses()).isSubsetOf(200, 429);
        softly.assertThat(stack.backendHits(key)).as("the backend saw the allowed requests").isEqualTo(result.allowed());
        softly.assertAll();
    }

    @Test
    @Order(2)
    void aGatewayRestartedFromItsSnapshotAndHitTheMomentItIsReadyGetsNoMoreThanTheBucket() {
        stack.rulesService().kill();
        JavaService restarted = stack.gateways().get(2);
        restarted.kill();
        String key = Fleet.freshKey("orders");
        long launched;
        long ready;
        Burst.Result result;
        try (Burst burst = Burst.prepare(REQUESTS, REQUESTS, i -> stack.call(2, "POST", "/orders", key))) {
            launched = System.nanoTime();
            restarted.launch().awaitReady(Duration.ofMillis(20));
            ready = System.nanoTime();
            result = burst.fire();
        }

        // a process that has just started has counted nothing before: its totals are the restart's
        Fallbacks fallbacks = Fallbacks.between(restarted.name(), Metrics.none(), Metrics.of(restarted), RULE);
        long ceiling = result.ceiling(BURST, PER_SECOND);
        LOG.infof("restarted gateway hit at once: ready %d ms after launch, first request %d ms after ready; %d POSTs"
                + " in %d ms: answers %s, allowed %d of at most %d%n  %s (since start)", (ready - launched) / 1_000_000,
                (result.firstSentNanos() - ready) / 1_000_000, REQUESTS, result.elapsed().toMillis(), result.statuses(),
                result.allowed(), ceiling, fallbacks);

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(result.allowed()).as("allowed in %d ms (burst %d + refill)", result.elapsed().toMillis(), BURST)
                .isLessThanOrEqualTo((int) ceiling);
        softly.assertThat(fallbacks.decisions()).as("failure-mode decisions with the store up (%s)", fallbacks)
                .isZero();
        softly.assertThat(result.statuses().keySet()).as("answers by status %s", result.statuses()).isSubsetOf(200, 429);
        softly.assertThat(stack.backendHits(key)).as("the backend saw the allowed requests").isEqualTo(result.allowed());
        softly.assertThat(Fleet.enforces(stack, 2, RULE, "/orders/probe")).as("the rule came from the snapshot").isTrue();
        softly.assertAll();
    }
}
