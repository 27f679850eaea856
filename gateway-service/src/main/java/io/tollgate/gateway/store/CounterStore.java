package io.tollgate.gateway.store;

import java.util.List;

import io.tollgate.counter.Decision;
import io.tollgate.counter.Peek;
import io.vertx.core.Future;

/**
 * A counter store: checks and spends from all of one client's buckets at once. Either every bucket allows
 * and each is spent, or none is spent. Implementations never block the calling event loop.
 * <p>
 * For the management operations it also reads a bucket without spending ({@link #peek}) and resets one
 * ({@link #reset}). Both stores implement them; they are default methods so that a check alone (a lambda, in
 * tests) is still a store, which answers them with a failed future.
 */
public interface CounterStore {

    /** The settlement that renews a slot. */
    List<Long> RENEW = List.of(0L);

    /**
     * One decision per bucket, in order; a failed future when the store cannot answer. A Vert.x future,
     * not a Mutiny Uni: this is the per-request path, and Quarkus wraps every Uni callback for context
     * propagation, which cost measurable CPU per check here.
     */
    Future<List<Decision>> check(List<Bucket> buckets);

    /**
     * What {@code bucket} holds now under its policy (whether it is stored, whole units held, ms until full),
     * spending nothing and changing no bucket; an absent bucket peeks as full. A failed future when the store
     * cannot answer.
     */
    default Future<Peek> peek(Bucket bucket) {
        return Future.failedFuture(new UnsupportedOperationException("this store cannot peek"));
    }

    /**
     * Resets {@code bucket}: deletes what it holds, so its next check finds it full. True when there was a
     * bucket to reset, false when there was none. A failed future when the store cannot answer.
     */
    default Future<Boolean> reset(Bucket bucket) {
        return Future.failedFuture(new UnsupportedOperationException("this store cannot reset a bucket"));
    }

    /**
     * Settles {@code buckets}: spends {@code deltas[i]} more from bucket i whatever it holds (it may go into debt),
     * or gives {@code -deltas[i]} back; the buckets share a hash tag. One decision per bucket: what it holds after
     * (negative remaining: in debt). A failed future when the store cannot answer.
     */
    default Future<List<Decision>> settle(List<Bucket> buckets, List<Long> deltas) {
        return Future.failedFuture(new UnsupportedOperationException("this store cannot settle"));
    }

    /** Gives back the slot a {@code concurrency} check took in {@code bucket} (its policy names the slot). */
    default Future<Void> releaseSlot(Bucket bucket) {
        return Future.failedFuture(new UnsupportedOperationException("this store holds no slots"));
    }

    /**
     * Renews the slot a {@code concurrency} check took in {@code bucket}: when still live, it ends a slot's time
     * ({@code periodMs}) from now; one expired or given back stays gone. A settlement of 0 of its key.
     */
    default Future<Void> renewSlot(Bucket bucket) {
        return settle(List.of(bucket), RENEW).mapEmpty();
    }
}
