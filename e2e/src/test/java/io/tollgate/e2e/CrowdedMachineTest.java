package io.tollgate.e2e;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.assertj.core.api.SoftAssertions;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Burst;
import io.tollgate.e2e.support.CpuBurner;
import io.tollgate.e2e.support.Fallbacks;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Metrics;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * Three gateways on a machine whose cores are all taken (two spinning threads in the test beside the HTTP load,
 * the fleet's ten processes and whatever else the machine runs), with the product's default store timeout: one
 * API key's requests spread round robin over the three get no more than its bucket holds plus what it refills
 * while they run, in each of three rounds with a fresh key. The store is up all along; what the failure mode
 * decided instead of it is reported per gateway.
 */
class CrowdedMachineTest {

    private static final Logger LOG = Logger.getLogger(CrowdedMachineTest.class);
    private static final String RULE = "partner.minute";
    private static final long LIMIT = 100;
    private static final double PER_SECOND = LIMIT / 60.0;
    private static final int ROUNDS = 3;
    private static final int REQUESTS = 360;
    private static final int CLIENTS = 12;
    private static final int SPINNERS = 2;
    /** A round takes a few seconds even on a starved machine; the spinners stop by then whatever happens. */
    private static final Duration SPIN_AT_MOST = Duration.ofSeconds(30);

    @Test
    void oneKeyOverThreeGatewaysGetsNoMoreThanItsBucketWhileTheCoresAreBusy() {
        try (Stack stack = Stack.withProductStoreTimeout(3, Map.of())) {
            stack.putRule(RULE, Rules.perApiKey(RULE, "/partner/**", LIMIT, "1m", "local"));
            Fleet.awaitEverywhere(stack, RULE, "/partner/probe", Duration.ofSeconds(5));

            SoftAssertions softly = new SoftAssertions();
            for (int round = 1; round <= ROUNDS; round++) {
                String key = Fleet.freshKey("partner");
                List<Metrics> before = Metrics.ofEach(stack.gateways());
                Burst.Result result;
                try (CpuBurner busy = CpuBurner.start(SPINNERS, SPIN_AT_MOST)) {
                    result = Burst.send(REQUESTS, CLIENTS, i -> stack.call(i % 3, "GET", "/partner/" + i, key));
                }
                List<Fallbacks> fallbacks = Fallbacks.between(stack.gateways(), before, Metrics.ofEach(stack.gateways()), RULE);
                long ceiling = result.ceiling(LIMIT, PER_SECOND);
                long fallbackDecisions = fallbacks.stream().mapToLong(Fallbacks::decisions).sum();
                LOG.infof("round %d: %d requests of one key in %d ms (load average %.1f): answers %s, allowed %d of at"
                        + " most %d; failure-mode decisions %d%n  %s", round, REQUESTS, result.elapsed().toMillis(),
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), result.statuses(),
                        result.allowed(), ceiling, fallbackDecisions,
                        Fallbacks.lines(fallbacks));

                long counted = Fallbacks.overadmitted(stack.gateways(), before, RULE, result.allowed() - ceiling);
                softly.assertThat(result.allowed())
                        .as("round %d: allowed in %d ms (burst %d + refill, + %d over-admissions counted)", round,
                                result.elapsed().toMillis(), LIMIT, counted)
                        .isLessThanOrEqualTo((int) (ceiling + counted));
                softly.assertThat(result.statuses().keySet()).as("round %d: answers by status %s", round, result.statuses())
                        .isSubsetOf(200, 429);
                softly.assertThat(stack.backendHits(key)).as("round %d: the backend saw the allowed requests", round)
                        .isEqualTo(result.allowed());
                if (fallbackDecisions == 0) {
                    // the store decided every request: the key had its whole bucket
                    softly.assertThat(result.allowed()).as("round %d: allowed with the store deciding all", round)
                            .isGreaterThanOrEqualTo((int) LIMIT);
                }
            }
            softly.assertAll();
        }
    }
}
