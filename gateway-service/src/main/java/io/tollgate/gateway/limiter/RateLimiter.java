package io.tollgate.gateway.limiter;

import java.util.List;

import io.tollgate.counter.Decision;
import io.vertx.core.Future;

/**
 * A counter store: checks and spends from all of one client's buckets at once. Either every bucket allows
 * and each is spent, or none is spent. Implementations never block the calling event loop.
 */
public interface RateLimiter {

    /**
     * One decision per bucket, in order; a failed future when the store cannot answer. A Vert.x future,
     * not a Mutiny Uni: this is the per-request path, and Quarkus wraps every Uni callback for context
     * propagation, which cost measurable CPU per check here.
     */
    Future<List<Decision>> check(List<Bucket> buckets);
}
