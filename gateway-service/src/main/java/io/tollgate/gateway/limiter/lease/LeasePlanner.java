package io.tollgate.gateway.limiter.lease;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/**
 * Decides, per bucket on one gateway, whether to take a lease and how big, from the bucket's policy, what the store
 * last said remains, the live gateways and this client's rate on this gateway. With cost c per request, rate r in
 * requests per second besides the one at hand ({@link LocalRate#perSecondBefore}), n live gateways and F = 1/2:
 *
 * <pre>
 *   lease time T = 50 ms + (1 s - 50 ms) × min(1, remaining / burst)
 *   k            = min(r × T × c + c, floor(remaining × F / n)), rounded down to a whole multiple of c
 *   no lease when k &lt; 2 × c, or when r × T &lt; 3
 * </pre>
 *
 * The first term is what the client spends here within the lease time, plus the request at hand, so a lease
 * ends used rather than returned; the second keeps every gateway's lease a fraction of its share of what the
 * bucket holds, so the others still find tokens and a stale word (the store's remaining, read before other
 * gateways spent) cannot ask for more than is there. Near the limit (remaining under 4 × c × n) k falls below 2 × c: no lease,
 * each request is checked alone. A client expected to send fewer than two more
 * requests here within the lease time gets none either: its lease would end given back, one store call, about as
 * often as it saved one.
 * Only token buckets and GCRA lease: a window frees its limit at once and a concurrency slot is not a token.
 */
public final class LeasePlanner {

    /** The shortest lease time, when the bucket is nearly empty. */
    public static final long MIN_LEASE_NANOS = 50_000_000L;
    /** The longest lease time, when the bucket is full. */
    public static final long MAX_LEASE_NANOS = 1_000_000_000L;
    /**
     * No lease for a client expected to send fewer other requests here within the lease time: such a client's
     * arrivals come in bursts that its rate (a one-second average) mistakes for a busy client, and its small leases
     * end given back, a store call each, about as often as they save one.
     */
    static final double MIN_EXPECTED_REQUESTS = 3;
    /** 1 / F: a lease takes at most remaining ÷ (this × live gateways). */
    static final long SHARE_DIVISOR = 2;

    /** A lease to take: {@code tokens} spent by one check, admitting until {@code expiresAtNanos}. */
    public record Plan(long tokens, long expiresAtNanos) {

        /** No lease: the request is checked alone. */
        public static final Plan NONE = new Plan(0, 0);

        /** Whether a lease is to be taken. */
        public boolean leases() {
            return tokens > 0;
        }
    }

    private LeasePlanner() {
    }

    /** Whether a bucket of {@code policy} may lease at all: token bucket and GCRA only. */
    public static boolean leasable(Policy policy) {
        return policy.algorithm() == Algorithm.TOKEN_BUCKET || policy.algorithm() == Algorithm.GCRA;
    }

    /**
     * The lease to take now for a bucket of {@code policy}, or {@link Plan#NONE}.
     *
     * @param remaining
     * what the store last said the bucket holds, in tokens
     * @param gateways
     * the live gateways (fewer than 1 counts as 1)
     * @param requestsPerSecond
     * this client's rate on this gateway besides the request at hand ({@link LocalRate#perSecondBefore})
     * @param nowNanos
     * the gateway's clock, from which the lease time runs
     */
    public static Plan plan(Policy policy, long remaining, int gateways, double requestsPerSecond, long nowNanos) {
        if (!leasable(policy) || remaining <= 0) {
            return Plan.NONE;
        }
        long cost = policy.cost();
        long leaseNanos = leaseNanos(policy, remaining);
        double rate = Double.isFinite(requestsPerSecond) ? Math.max(0, requestsPerSecond) : 0;
        double expected = rate * leaseNanos / 1e9; // the client's other requests here within the lease time
        if (expected < MIN_EXPECTED_REQUESTS) {
            return Plan.NONE;
        }
        double wanted = expected * cost + cost;
        long share = remaining / (SHARE_DIVISOR * Math.max(1, gateways));
        long k = (long) Math.min(wanted, share);
        k -= k % cost;
        if (k < 2 * cost) {
            return Plan.NONE;
        }
        return new Plan(k, nowNanos + leaseNanos);
    }

    /** The lease time: from {@link #MIN_LEASE_NANOS} when the bucket is empty to {@link #MAX_LEASE_NANOS} when full. */
    public static long leaseNanos(Policy policy, long remaining) {
        double full = Math.min(1, Math.max(0, (double) remaining / policy.burst()));
        return MIN_LEASE_NANOS + (long) ((MAX_LEASE_NANOS - MIN_LEASE_NANOS) * full);
    }
}
