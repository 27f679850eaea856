package io.tollgate.gateway.limiter.lease;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/** The lease rule, term by term. */
class LeasePlannerTest {

    /** 1000 a second, burst 1000, cost 1. */
    private static final Policy BUCKET = new Policy(Algorithm.TOKEN_BUCKET, 1000, 1000, 1000);

    @Test
    void aFullBucketLeasesWhatTheClientSpendsHereInASecond() {
        LeasePlanner.Plan plan = LeasePlanner.plan(BUCKET, 1000, 1, 200, 0);
        assertThat(plan.tokens()).as("200 a second × 1 s + 1").isEqualTo(201);
        assertThat(plan.expiresAtNanos()).isEqualTo(LeasePlanner.MAX_LEASE_NANOS);
    }

    @Test
    void aBusyClientLeasesAtMostHalfOfItsGatewaysShare() {
        assertThat(LeasePlanner.plan(BUCKET, 1000, 1, 50_000, 0).tokens()).isEqualTo(500);
        assertThat(LeasePlanner.plan(BUCKET, 1000, 4, 50_000, 0).tokens()).isEqualTo(125);
    }

    @Test
    void theLeaseTimeShortensAsTheBucketEmpties() {
        assertThat(LeasePlanner.plan(BUCKET, 100, 1, 200, 0).expiresAtNanos()).isEqualTo(145_000_000);
        assertThat(LeasePlanner.plan(BUCKET, 100, 1, 200, 0).tokens()).as("200 × 0.145 s + 1").isEqualTo(30);
    }

    @Test
    void nearTheLimitEveryRequestIsCheckedAlone() {
        assertThat(LeasePlanner.plan(BUCKET, 11, 3, 50_000, 0).leases()).as("11 ÷ 6 < 2").isFalse();
        assertThat(LeasePlanner.plan(BUCKET, 12, 3, 50_000, 0).tokens()).isEqualTo(2);
        assertThat(LeasePlanner.plan(BUCKET, 0, 1, 50_000, 0).leases()).isFalse();
        assertThat(LeasePlanner.plan(BUCKET, -5, 1, 50_000, 0).leases()).as("in debt").isFalse();
    }

    @Test
    void aQuietClientDoesNotLease() {
        assertThat(LeasePlanner.plan(BUCKET, 1000, 1, 0.5, 0).leases()).isFalse();
        assertThat(LeasePlanner.plan(BUCKET, 1000, 1, 0, 0).leases()).isFalse();
    }

    @Test
    void aLeaseIsAWholeNumberOfRequests() {
        Policy costly = BUCKET.withCost(7);
        assertThat(LeasePlanner.plan(costly, 1000, 1, 10, 0).tokens()).as("10 × 7 + 7 = 77").isEqualTo(77);
        assertThat(LeasePlanner.plan(costly, 100, 1, 50_000, 0).tokens()).as("50, down to 7s").isEqualTo(49);
        assertThat(LeasePlanner.plan(costly, 27, 1, 50_000, 0).leases()).as("13 holds one request of 7").isFalse();
    }

    @Test
    void onlyTokenBucketsAndGcraLease() {
        assertThat(LeasePlanner.plan(new Policy(Algorithm.GCRA, 1000, 1000, 1000), 1000, 1, 200, 0).tokens())
                .isEqualTo(201);
        for (Algorithm window : new Algorithm[]{Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW}) {
            assertThat(LeasePlanner.plan(new Policy(window, 1000, 1000, 1000), 1000, 1, 200, 0).leases()).isFalse();
        }
        assertThat(LeasePlanner.plan(Policy.slot(1000, 1000, 1), 1000, 1, 200, 0).leases()).isFalse();
    }
}
