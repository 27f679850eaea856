package io.tollgate.gateway.store;

import java.time.Clock;
import java.util.List;

import io.tollgate.counter.Decision;
import io.tollgate.counter.InMemoryCounters;
import io.tollgate.counter.Peek;
import io.vertx.core.Future;

/**
 * {@code tollgate.store.type=memory}: the same all-or-nothing check in this process. Exact for ONE gateway
 * only: N gateways each counting alone let N times the limit through (the lesson's twelve counters).
 */
final class InMemoryCounterStore implements CounterStore {

    private final InMemoryCounters counters = new InMemoryCounters();
    private final Clock clock;

    InMemoryCounterStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Future<List<Decision>> check(List<Bucket> buckets) {
        long nowMicros = nowMicros();
        try {
            return Future.succeededFuture(counters.check(
                    buckets.stream().map(Bucket::key).toList(),
                    buckets.stream().map(Bucket::policy).toList(),
                    nowMicros));
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Peek> peek(Bucket bucket) {
        return Future.succeededFuture(counters.peek(bucket.key(), bucket.policy(), nowMicros()));
    }

    @Override
    public Future<Boolean> reset(Bucket bucket) {
        return Future.succeededFuture(counters.reset(bucket.key(), nowMicros()));
    }

    @Override
    public Future<List<Decision>> settle(List<Bucket> buckets, List<Long> deltas) {
        try {
            return Future.succeededFuture(counters.settle(
                    buckets.stream().map(Bucket::key).toList(),
                    buckets.stream().map(Bucket::policy).toList(),
                    deltas, nowMicros()));
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    @Override
    public Future<Void> releaseSlot(Bucket bucket) {
        counters.releaseSlot(bucket.key(), bucket.policy().slotId());
        return Future.succeededFuture();
    }

    private long nowMicros() {
        return clock.instant().toEpochMilli() * 1000;
    }
}
