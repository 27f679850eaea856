package io.tollgate.gateway.admin;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * One rule's rejected clients over the last minutes: two {@link SpaceSaving} sketches, the current one and the
 * one before. Every {@code halfNanos} the current one becomes the one before and a fresh one starts, so an answer
 * covers between one and two halves, and a client that stopped flooding falls out within two. Memory stays
 * at two sketches of {@code capacity} counters, however many clients are rejected. Thread-safe.
 */
final class RejectionWindow {

    /** The heaviest keys and how many nanoseconds of rejections their counts cover. */
    record Top(List<SpaceSaving.Entry> entries, long coversNanos) {
    }

    private final int capacity;
    private final long halfNanos;
    private final LongSupplier nanoClock;
    private SpaceSaving current;
    private SpaceSaving previous;
    private long currentStart;
    private long previousStart;

    RejectionWindow(int capacity, long halfNanos, LongSupplier nanoClock) {
        this.capacity = capacity;
        this.halfNanos = halfNanos;
        this.nanoClock = nanoClock;
        this.currentStart = nanoClock.getAsLong();
        this.previousStart = currentStart;
        this.current = new SpaceSaving(capacity);
        this.previous = new SpaceSaving(capacity);
    }

    synchronized void add(String key) {
        rotate(nanoClock.getAsLong()).add(key);
    }

    /** The {@code n} keys rejected most over the current half and the one before, heaviest first. */
    synchronized Top top(int n) {
        long now = nanoClock.getAsLong();
        rotate(now);
        return new Top(SpaceSaving.top(previous, current, n), now - previousStart);
    }

    /** The sketch of the half {@code now} falls in, after dropping what is older than the half before it. */
    private SpaceSaving rotate(long now) {
        long elapsed = now - currentStart;
        if (elapsed < halfNanos) {
            return current;
        }
        long halves = elapsed / halfNanos;
        long start = currentStart + halves * halfNanos;
        if (halves == 1) {
            previous = current;
            previousStart = currentStart;
        } else {
            previous = new SpaceSaving(capacity); // the last rejection is older than a whole half: nothing to keep
            previousStart = start - halfNanos;
        }
        current = new SpaceSaving(capacity);
        currentStart = start;
        return current;
    }
}
