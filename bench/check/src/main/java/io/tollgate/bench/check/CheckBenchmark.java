package io.tollgate.bench.check;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * Checks per second through the gateway's store path, opened by {@link BenchmarkStore}: the guarded store
 * (timeout, breaker, latency timer) over the Redis store (one connection pinned per event loop; with {@code coalesce}, the
 * checks a
 * loop asks for in one turn as ONE {@code EVALSHA} of check.lua, else one each; NOSCRIPT fallback) against a
 * real Redis at {@code -Dredis.url}. {@code inFlight} checks are
 * outstanding at all times, spread over {@code loops} event loops, as the gateway's requests are; each
 * invocation runs {@link #BATCH} checks, so the score is per check.
 * <p>
 * {@code keys=10000}: a different client key for each check, round robin over 10,000 (every check
 * allowed: the policy is a billion a second). {@code keys=1}: one hot key.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CheckBenchmark {

    static final int BATCH = 20_000;
    private static final Policy GENEROUS = new Policy(Algorithm.TOKEN_BUCKET, 1_000_000_000L, 1_000, 1_000_000_000L);

    @Param({"10000", "1"})
    int keys;

    @Param({"50"})
    int inFlight;

    @Param({"2"})
    int loops;

    /** {@code tollgate.store.coalesce}: one script call per loop's batch of checks (standalone Redis). */
    @Param({"true"})
    boolean coalesce;

    private Vertx vertx;
    private BenchmarkStore store;
    private List<List<Bucket>> buckets;
    private Context[] contexts;

    @Setup(Level.Trial)
    public void start() throws Exception {
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
        store = BenchmarkStore.redis(vertx, System.getProperty("redis.url", "redis://127.0.0.1:6379"), coalesce);
        buckets = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            buckets.add(List.of(new Bucket(CounterKeys.key("bench.check", "client-" + i), GENEROUS)));
        }
        contexts = new Context[loops];
        for (int i = 0; i < loops; i++) {
            contexts[i] = vertx.getOrCreateContext();
        }
        run(); // the script is loaded (NOSCRIPT, then EVAL) and every loop's connection is open
    }

    @TearDown(Level.Trial)
    public void stop() {
        store.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void checks() throws InterruptedException {
        run();
    }

    private void run() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(BATCH);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int perLoop = BATCH / loops;
        for (int l = 0; l < loops; l++) {
            Context context = contexts[l];
            int first = l * perLoop;
            context.runOnContext(v -> {
                Chain chain = new Chain(first, first + perLoop, done, failure);
                for (int i = 0; i < Math.max(1, inFlight / loops); i++) {
                    chain.next();
                }
            });
        }
        if (!done.await(60, TimeUnit.SECONDS) || failure.get() != null) {
            throw new IllegalStateException("checks failed or stalled", failure.get());
        }
    }

    /** Keeps a fixed number of checks outstanding on one event loop until its share is sent. */
    private final class Chain {

        private int next;
        private final int end;
        private final CountDownLatch done;
        private final AtomicReference<Throwable> failure;

        Chain(int first, int end, CountDownLatch done, AtomicReference<Throwable> failure) {
            this.next = first;
            this.end = end;
            this.done = done;
            this.failure = failure;
        }

        void next() {
            if (next >= end) {
                return;
            }
            List<Bucket> call = buckets.get(next++ % keys);
            store.check(call).onComplete(result -> {
                if (result.failed()) {
                    failure.compareAndSet(null, result.cause());
                } else if (!result.result().get(0).allowed()) {
                    failure.compareAndSet(null, new IllegalStateException("rejected: " + result.result()));
                }
                done.countDown();
                next();
            });
        }
    }
}
