package io.tollgate.gateway.sync;

/**
 * How long a gateway waits before it asks the rules service again after a call was answered with a refusal
 * (401, 403, 429, a 5xx): {@value #FIRST_MS} ms, doubling up to {@value #MAX_MS} ms, and from the start again
 * once a call is served. Bounded both ways: a refused gateway is current again within moments of the service
 * serving it, and never asks more than once per {@value #MAX_MS} ms while it is refused. Thread-safe: polls end on
 * event loops and workers alike.
 */
final class Backoff {

    static final long FIRST_MS = 100;
    static final long MAX_MS = 5000;

    private long nextMs = FIRST_MS;
    private int refusals;

    /** One more refusal: the wait before the next try. */
    synchronized long refused() {
        long wait = nextMs;
        nextMs = Math.min(MAX_MS, nextMs * 2);
        refusals++;
        return wait;
    }

    /** Whether the last refusal began a streak (the one worth a WARN). */
    synchronized boolean firstRefusal() {
        return refusals == 1;
    }

    /** A call was served: the next refusal waits {@value #FIRST_MS} ms again. How many refusals came before it. */
    synchronized int served() {
        int ended = refusals;
        refusals = 0;
        nextMs = FIRST_MS;
        return ended;
    }
}
