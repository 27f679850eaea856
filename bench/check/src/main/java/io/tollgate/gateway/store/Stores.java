package io.tollgate.gateway.store;

import io.tollgate.gateway.limiter.RateLimiter;
import io.vertx.redis.client.Redis;

/** Opens the gateway's Redis store (package-private in the gateway) to the benchmark. */
public final class Stores {

    private Stores() {
    }

    /** The store the gateway runs with {@code tollgate.store.type=redis} and {@code tollgate.store.coalesce}. */
    public static RateLimiter redis(Redis client, boolean coalesce) {
        return new RedisRateLimiter(client, coalesce);
    }
}
