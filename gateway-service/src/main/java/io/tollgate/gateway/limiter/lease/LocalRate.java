package io.tollgate.gateway.limiter.lease;

/**
 * One client's request rate on this gateway, decaying exponentially: each arrival adds {@code 1 / TAU} to the
 * estimate, which decays by {@code exp(-elapsed / TAU)}, so for steady arrivals it tends to their rate and a client
 * that goes quiet fades to 0 within a few {@code TAU}. The clock is the caller's: arrivals and reads take their
 * time in nanoseconds ({@code System.nanoTime()} in production), never earlier than the latest arrival.
 * <p>
 * Thread-safe: a client's requests may arrive on several event loops at once.
 */
public final class LocalRate {

    /** The estimator's time constant: the rate it reports weighs the last second most. */
    public static final long TAU_NANOS = 1_000_000_000L;

    private static final double PER_SECOND = 1e9 / TAU_NANOS;

    /** The estimate in arrivals per second at {@link #atNanos}. */
    private double perSecond;
    private long atNanos;
    private boolean seen;

    /** A client not seen yet: rate 0. */
    public LocalRate() {
    }

    /** A request of this client arrived at {@code nowNanos}. */
    public synchronized void arrived(long nowNanos) {
        perSecond = decayed(nowNanos) + PER_SECOND;
        atNanos = seen ? Math.max(atNanos, nowNanos) : nowNanos;
        seen = true;
    }

    /** The client's rate on this gateway at {@code nowNanos}, in requests per second. */
    public synchronized double perSecond(long nowNanos) {
        return decayed(nowNanos);
    }

    /**
     * The client's rate at {@code nowNanos} without the weight of its latest arrival: read right after
     * {@link #arrived}, the rate of the requests other than the one at hand. A client's second request within a
     * second reads about 0 here, not 1, so a quiet client does not look busy enough to lease.
     */
    public synchronized double perSecondBefore(long nowNanos) {
        if (!seen) {
            return 0;
        }
        // the estimate just before the latest arrival, decayed since: both decay by the same factor
        long elapsed = Math.max(0, nowNanos - atNanos);
        return Math.max(0, perSecond - PER_SECOND) * Math.exp(-(double) elapsed / TAU_NANOS);
    }

    private double decayed(long nowNanos) {
        if (!seen) {
            return 0;
        }
        long elapsed = Math.max(0, nowNanos - atNanos);
        return perSecond * Math.exp(-(double) elapsed / TAU_NANOS);
    }
}
