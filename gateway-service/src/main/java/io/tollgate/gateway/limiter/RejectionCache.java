package io.tollgate.gateway.limiter;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers rejected buckets until their retry time, so a flooding client is answered 429 from memory and
 * costs at most one store call per retry period per gateway. Exact for token bucket and GCRA (nothing can
 * free a token earlier); for windows the retry time is the window's end, also exact.
 */
final class RejectionCache {

    /** Bounds memory under a flood of distinct keys; past it expired entries go, then all (it is only a cache). */
    private static final int MAX_ENTRIES = 100_000;

    private final ConcurrentHashMap<String, Long> untilNanos = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    RejectionCache(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** How long {@code bucketKey} stays rejected, in ms (at least 1 while remembered); 0 when not remembered. */
    long remainingMs(String bucketKey) {
        Long until = untilNanos.get(bucketKey);
        if (until == null) {
            return 0;
        }
        long left = until - nanoClock.getAsLong();
        if (left <= 0) {
            untilNanos.remove(bucketKey, until);
            return 0;
        }
        return Math.max(1, left / 1_000_000);
    }

    void remember(String bucketKey, long retryAfterMs) {
        if (retryAfterMs <= 0) {
            return;
        }
        long now = nanoClock.getAsLong();
        if (untilNanos.size() >= MAX_ENTRIES) {
            untilNanos.values().removeIf(until -> until - now <= 0);
            if (untilNanos.size() >= MAX_ENTRIES) {
                untilNanos.clear();
            }
        }
        untilNanos.put(bucketKey, now + retryAfterMs * 1_000_000);
    }
}
