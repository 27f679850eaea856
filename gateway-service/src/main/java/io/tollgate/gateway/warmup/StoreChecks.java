package io.tollgate.gateway.warmup;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.store.CounterStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * The warm-up's first part: 20 checks on every event loop, one after another, straight to the store (not
 * timed, not counted by the circuit breaker), so that each loop's pinned Redis connection is open and the
 * script loaded before any check is timed. They spend from a bucket of their own that never rejects and
 * expires at once. Fails with the first check the store cannot answer.
 */
final class StoreChecks {

    private static final int PER_LOOP = 20;
    private static final Bucket BUCKET = new Bucket(CounterKeys.key(WarmupGate.RULE_ID, "warmup"),
            new Policy(Algorithm.TOKEN_BUCKET, 1_000_000_000L, 1_000, 1_000_000_000L));

    private StoreChecks() {
    }

    static Future<Void> run(CounterStore store, List<Context> loops) {
        List<Future<Void>> warmed = new ArrayList<>();
        for (Context loop : loops) {
            Promise<Void> checked = Promise.promise();
            loop.runOnContext(v -> checks(store, PER_LOOP, checked));
            warmed.add(checked.future());
        }
        return Future.all(warmed).mapEmpty();
    }

    /** {@code left} checks one after another on the calling loop, then completes {@code checked}. */
    private static void checks(CounterStore store, int left, Promise<Void> checked) {
        if (left == 0) {
            checked.tryComplete();
            return;
        }
        store.check(List.of(BUCKET)).onComplete(result -> {
            if (result.failed()) {
                checked.tryFail(result.cause());
            } else {
                checks(store, left - 1, checked);
            }
        });
    }
}
