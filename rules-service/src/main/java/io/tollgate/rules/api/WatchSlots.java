package io.tollgate.rules.api;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The places for open watch streams on this instance, {@code tollgate.watch.max-streams} of them: each open stream
 * holds one until it closes, however it closes, so a flood of idle streams cannot take every connection and
 * database read the service has.
 */
final class WatchSlots {

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    WatchSlots(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("tollgate.watch.max-streams must be >= 1, was " + max);
        }
        this.max = max;
    }

    /** A place, or null when all are taken. */
    Runnable take() {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return null;
        }
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                open.decrementAndGet();
            }
        };
    }

    int open() {
        return open.get();
    }

    int max() {
        return max;
    }
}
