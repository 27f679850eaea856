package io.tollgate.gateway.limiter.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;

/** The seeding rule as pure logic, with a fake clock: the local fallback never admits beyond the store's word. */
class FallbackBucketsTest {

    /** 10 a second, burst 20: one token every 100 ms. */
    private static final Bucket ORDERS = new Bucket("rl:orders.write:{ak_42}",
            new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20));
    private static final Bucket PARTNER = new Bucket("rl:partner.minute:{ak_42}",
            new Policy(Algorithm.TOKEN_BUCKET, 100, 60_000, 100));

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final FallbackBuckets buckets = new FallbackBuckets(nanos::get);

    @Test
    void withoutAWordAClientGetsThisGatewaysShare() {
        assertThat(admitted(ORDERS, 2, 100)).as("burst 20 ÷ 2 gateways").isEqualTo(10);
    }

    @Test
    void theStoreSaidNothingLeftSoTheFallbackRejectsUntilTheStoresRetryTime() {
        buckets.heard(ORDERS, 0, 2_000);
        Decision first = decide(ORDERS, 1);
        assertThat(first.allowed()).isFalse();
        assertThat(first.retryAfterMs()).isEqualTo(100);
        advanceMs(99);
        assertThat(decide(ORDERS, 1).allowed()).as("before the next token").isFalse();
        advanceMs(1);
        assertThat(decide(ORDERS, 1).allowed()).as("the next token").isTrue();
        assertThat(decide(ORDERS, 1).allowed()).isFalse();
    }

    @Test
    void theStoreSaidTenSoAtMostTenPassLocally() {
        buckets.heard(ORDERS, 10, 1_000);
        assertThat(admitted(ORDERS, 1, 100)).isEqualTo(10);
    }

    @Test
    void aFleetOfGatewaysAdmitsAtMostWhatTheStoreLastSaidPlusItsRefill() {
        List<FallbackBuckets> fleet = List.of(new FallbackBuckets(nanos::get), new FallbackBuckets(nanos::get),
                new FallbackBuckets(nanos::get));
        fleet.forEach(g -> g.heard(PARTNER, 9, 6_000));
        int admitted = 0;
        for (FallbackBuckets gateway : fleet) {
            for (int i = 0; i < 50; i++) {
                admitted += gateway.decide(List.of(PARTNER), 3).get(0).allowed() ? 1 : 0;
            }
        }
        assertThat(admitted).as("9 left, shared by 3 gateways").isEqualTo(9);
        advanceMs(60_000);
        for (FallbackBuckets gateway : fleet) {
            for (int i = 0; i < 100; i++) {
                admitted += gateway.decide(List.of(PARTNER), 3).get(0).allowed() ? 1 : 0;
            }
        }
        assertThat(admitted).as("a minute later: 100 more refilled at most").isLessThanOrEqualTo(9 + 100);
    }

    @Test
    void aWordOnlyEverLowersTheLocalBucket() {
        assertThat(admitted(ORDERS, 1, 15)).isEqualTo(15);
        buckets.heard(ORDERS, 18, 200);
        assertThat(admitted(ORDERS, 1, 100)).as("5 left here; the store's 18 do not raise it").isEqualTo(5);
    }

    @Test
    void allOrNothingAcrossOneClientsBuckets() {
        buckets.heard(PARTNER, 0, 60_000);
        List<Decision> both = buckets.decide(List.of(ORDERS, PARTNER), 1);
        assertThat(both).extracting(Decision::allowed).containsExactly(true, false);
        assertThat(both.get(0).remaining()).as("orders.write was not spent").isEqualTo(20);
        assertThat(admitted(ORDERS, 1, 100)).isEqualTo(20);
    }

    @Test
    void theWordRefillsAtTheSharesRate() {
        buckets.heard(ORDERS, 0, 2_000);
        advanceMs(1_000);
        assertThat(admitted(ORDERS, 2, 100)).as("1 s at 10/s ÷ 2 gateways").isEqualTo(5);
    }

    private int admitted(Bucket bucket, int gateways, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += decide(bucket, gateways).allowed() ? 1 : 0;
        }
        return admitted;
    }

    private Decision decide(Bucket bucket, int gateways) {
        return buckets.decide(List.of(bucket), gateways).get(0);
    }

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }
}
