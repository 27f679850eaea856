package io.tollgate.gateway.limiter.lease;

/**
 * The tokens this gateway holds for one bucket: {@code taken} tokens spent in the store by one check, which the
 * gateway admits requests from without asking the store again, until it is used up or expires. What is left
 * ({@link #leftover}) goes back to the store as a settlement of {@code -leftover}; once taken for that, the lease
 * admits nothing more, so no token is both given back and admitted.
 * <p>
 * Thread-safe: the requests of one client take from its lease on several event loops at once.
 */
public final class Lease {

    private final long taken;
    private final long storeRemaining;
    private final long expiresAtNanos;
    private long left;
    private boolean closed;

    /**
     * A lease of {@code taken} tokens, held until {@code expiresAtNanos}.
     *
     * @param storeRemaining
     * what the store said remains in the bucket right after it spent {@code taken}
     */
    public Lease(long taken, long storeRemaining, long expiresAtNanos) {
        if (taken < 1) {
            throw new IllegalArgumentException("a lease takes at least 1 token, was " + taken);
        }
        this.taken = taken;
        this.storeRemaining = storeRemaining;
        this.expiresAtNanos = expiresAtNanos;
        this.left = taken;
    }

    /**
     * Spends {@code cost} tokens of the lease for one request at {@code nowNanos}: whether it may pass without the
     * store. Only while the lease is unexpired, not given back, and holds {@code cost}; otherwise nothing is spent.
     */
    public synchronized boolean tryTake(long cost, long nowNanos) {
        if (closed || nowNanos - expiresAtNanos >= 0 || left < cost) {
            return false;
        }
        left -= cost;
        return true;
    }

    /**
     * Puts back {@code cost} a {@link #tryTake} spent for a request that did not pass after all (another of its
     * buckets had no lease): false, changing nothing, once the lease is closed (its leftover is counted without
     * it).
     */
    public synchronized boolean refund(long cost) {
        if (closed) {
            return false;
        }
        left += cost;
        return true;
    }

    /**
     * Closes the lease and answers the tokens it still holds, to give back to the store: every later
     * {@link #tryTake} fails, and a second call answers 0.
     */
    public synchronized long leftover() {
        long out = closed ? 0 : left;
        closed = true;
        left = 0;
        return out;
    }

    /**
     * The remaining to report to the client: what the store said remains plus what this lease still holds, which is
     * the bucket's remaining before the lease was taken minus what this gateway admitted from it since. Never above
     * what the store last said minus what this gateway spent since; refill and other gateways' spending are not
     * guessed.
     */
    public synchronized long remaining() {
        return storeRemaining + left;
    }

    /** The tokens the store spent for this lease. */
    public long taken() {
        return taken;
    }

    /** The tokens still held (0 once given back). */
    public synchronized long left() {
        return left;
    }

    /** When the lease stops admitting, on the gateway's nanosecond clock. */
    public long expiresAtNanos() {
        return expiresAtNanos;
    }

    /** Whether the lease admits nothing more by {@code nowNanos}: expired or given back. */
    public synchronized boolean over(long nowNanos) {
        return closed || nowNanos - expiresAtNanos >= 0;
    }
}
