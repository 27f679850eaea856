package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.limiter.Bucket;
import io.tollgate.gateway.limiter.RateLimiter;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * Runs the check path a few times on every event loop before the gateway reports ready, so the first
 * client's check does not pay for loading classes, connecting that loop's store connection and loading
 * the script inside {@code tollgate.store.timeout}: measured on a fresh gateway, the first check took
 * 100-140 ms and a {@code closed} rule answered its first request 503 in three starts of four.
 * <p>
 * The warm-up checks spend from a bucket of their own ({@code rl:tollgate.warmup:{...}}) that never
 * rejects and expires at once. A store that cannot answer does not hold readiness back: the warm-up
 * ends after {@link #BOUND_MS} whatever happened, and the failure modes take over from there.
 */
@Readiness
@ApplicationScoped
class StoreWarmup implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(StoreWarmup.class);
    private static final int CHECKS_PER_LOOP = 20;
    private static final long BOUND_MS = 3_000;
    private static final Bucket BUCKET = new Bucket(CounterKeys.key("tollgate.warmup", "warmup"),
            new Policy(Algorithm.TOKEN_BUCKET, 1_000_000_000L, 1_000, 1_000_000_000L));

    private final AtomicBoolean done = new AtomicBoolean();

    void onStart(@Observes StartupEvent start, Vertx vertx, RateLimiter store) {
        // getOrCreateContext off a Vert.x thread gives a new context on the next event loop, round robin
        List<Future<Void>> warmed = new ArrayList<>();
        for (var ignored : vertx.nettyEventLoopGroup()) {
            Context context = vertx.getOrCreateContext();
            Promise<Void> loop = Promise.promise();
            context.runOnContext(v -> checks(store, CHECKS_PER_LOOP, loop));
            warmed.add(loop.future());
        }
        long timer = vertx.setTimer(BOUND_MS, t -> finish("not all done after " + BOUND_MS + " ms"));
        Future.join(warmed).onComplete(all -> {
            vertx.cancelTimer(timer);
            finish(all.succeeded() ? null : all.cause().toString());
        });
    }

    /** {@code left} checks one after another on the calling loop, then completes {@code loop}. */
    private static void checks(RateLimiter store, int left, Promise<Void> loop) {
        if (left == 0) {
            loop.tryComplete();
            return;
        }
        store.check(List.of(BUCKET)).onComplete(result -> {
            if (result.failed()) {
                loop.tryFail(result.cause());
            } else {
                checks(store, left - 1, loop);
            }
        });
    }

    private void finish(String problem) {
        if (done.compareAndSet(false, true)) {
            if (problem == null) {
                LOG.debug("store warm-up done");
            } else {
                LOG.infof("store warm-up ended early (%s); checks decide by failure mode until the store answers",
                        problem);
            }
        }
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("store-warmup").status(done.get()).build();
    }
}
