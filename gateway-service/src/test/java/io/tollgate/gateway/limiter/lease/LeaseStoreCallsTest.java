package io.tollgate.gateway.limiter.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/** Far from the limit, leases answer most requests without the store, and every request passes. */
class LeaseStoreCallsTest {

    private static final Logger LOG = Logger.getLogger(LeaseStoreCallsTest.class);
    /** 1000 a second, burst 1000. */
    private static final Policy BUCKET = new Policy(Algorithm.TOKEN_BUCKET, 1000, 1000, 1000);
    private static final long RUN_MICROS = 20_000_000;

    @Test
    void oneGatewayAtAFifthOfTheRateCallsTheStoreForFewerThanOneRequestInTwenty() {
        LeaseFleet fleet = flood(1, 0.2);
        assertThat(fleet.admitted()).isEqualTo(fleet.requests());
        assertThat(callsPerRequest("1 gateway at 20% of the rate", fleet)).isLessThan(0.05);
    }

    @Test
    void threeGatewaysAtFourFifthsOfTheRateAdmitEveryRequest() {
        LeaseFleet fleet = flood(3, 0.8);
        assertThat(fleet.admitted()).isEqualTo(fleet.requests());
        callsPerRequest("3 gateways at 80% of the rate", fleet);
    }

    @Test
    void aQuietKeyCostsNoMoreStoreCallsThanWithoutLeases() {
        // one of 10,000 keys sharing 13,000 requests a second over three gateways: 1.3 a second, under one a
        // second on each gateway; the sweep gives back what a lease has left when it runs out, a store call each
        Random random = new Random(23);
        LeaseFleet fleet = new LeaseFleet(BUCKET, 3);
        double perMicro = 1.3 / 1e6;
        for (long now = 0; now < 20 * RUN_MICROS; now += 1 + (long) (-Math.log(1 - random.nextDouble()) / perMicro)) {
            for (int g = 0; g < 3; g++) {
                fleet.returnIfOver(g, now);
            }
            fleet.request(random.nextInt(3), now);
        }
        double perRequest = callsPerRequest("a quiet key on 3 gateways, give-backs counted", fleet);
        LOG.infof("  tokens leased: %d", fleet.leasedTokens());
        assertThat(fleet.requests()).isGreaterThan(400);
        assertThat(perRequest).isLessThanOrEqualTo(1.0);
        assertThat(fleet.leasedTokens()).as("tokens leased").isLessThan(fleet.requests() / 20);
    }

    /** Store calls per request of the run, logged as a figure. */
    private static double callsPerRequest(String run, LeaseFleet fleet) {
        double perRequest = (double) fleet.storeCalls() / fleet.requests();
        LOG.infof("%s: %d requests, %d store calls, %.4f per request", run, fleet.requests(), fleet.storeCalls(),
                perRequest);
        return perRequest;
    }

    /** Requests at {@code share} of the bucket's rate for the run, at random gateways of {@code gateways}. */
    private static LeaseFleet flood(int gateways, double share) {
        Random random = new Random(23);
        LeaseFleet fleet = new LeaseFleet(BUCKET, gateways);
        double perMicro = share * BUCKET.limit() / (BUCKET.periodMs() * 1000.0);
        for (long now = 0; now < RUN_MICROS; now += 1 + (long) (-Math.log(1 - random.nextDouble()) / perMicro)) {
            fleet.request(random.nextInt(gateways), now);
        }
        return fleet;
    }
}
