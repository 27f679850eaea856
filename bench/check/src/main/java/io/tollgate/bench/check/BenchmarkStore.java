package io.tollgate.bench.check;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.guard.CircuitBreaker;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.store.RedisCounterStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;

/**
 * The benchmarks' door to the gateway's store path: the real {@link GuardedStore} (timeout, circuit breaker,
 * latency timer) over the real Redis store ({@link RedisCounterStore}: one pinned connection per event loop,
 * coalesced checks, {@code NOSCRIPT} healing), built as the gateway builds them, against a standalone Redis
 * at an address. It lives with the benchmark, which compiles against the gateway's classes and so fails to
 * compile when the store path changes shape.
 * <p>
 * The guard times out after one second, where the gateway's default is 100 ms: a benchmark measures
 * throughput, and one check that times out fails its run. The breaker has the gateway's defaults (100 checks,
 * opens at 60 % failed, stays open 1 s).
 */
final class BenchmarkStore implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final Redis client;
    private final GuardedStore store;

    private BenchmarkStore(Redis client, GuardedStore store) {
        this.client = client;
        this.store = store;
    }

    /**
     * The store path against the Redis at {@code redisUrl} (e.g. {@code redis://127.0.0.1:6379}), with the
     * pool the gateway configures (32 connections, 1,024 waiting).
     *
     * @param coalesce {@code tollgate.store.coalesce}: the checks an event loop asks for in one turn go to
     * Redis as one call of the check script, else one call each
     */
    static BenchmarkStore redis(Vertx vertx, String redisUrl, boolean coalesce) {
        Redis client = Redis.createClient(vertx, new RedisOptions()
                .setConnectionString(redisUrl)
                .setMaxPoolSize(32)
                .setMaxPoolWaiting(1024));
        GuardedStore store = new GuardedStore(new RedisCounterStore(client, coalesce, false), vertx, TIMEOUT, TIMEOUT,
                new CircuitBreaker(100, 0.6, Duration.ofSeconds(1).toNanos(), System::nanoTime),
                new SimpleMeterRegistry());
        return new BenchmarkStore(client, store);
    }

    /** One decision per bucket, in order, as the gateway's limiter gets it; a failed future when the store fails. */
    Future<List<Decision>> check(List<Bucket> buckets) {
        return store.check(buckets);
    }

    /** Closes the Redis client (not the Vert.x instance, which the caller owns). */
    @Override
    public void close() {
        client.close();
    }
}
