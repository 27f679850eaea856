package io.tollgate.gateway.limiter;

import java.util.List;

import io.smallrye.mutiny.Uni;
import io.tollgate.counter.Decision;

/**
 * A counter store: checks and spends from all of one client's buckets at once. Either every bucket allows
 * and each is spent, or none is spent. Implementations never block the calling event loop.
 */
public interface RateLimiter {

    /** One decision per bucket, in order; a failed Uni when the store cannot answer. */
    Uni<List<Decision>> check(List<Bucket> buckets);
}
