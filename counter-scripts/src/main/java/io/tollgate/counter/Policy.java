package io.tollgate.counter;

/**
 * What one bucket allows: {@code limit} units per {@code periodMs}, holding at most {@code burst}, and what one
 * check spends from it: {@code cost} units (a request of the rule).
 * <p>
 * For {@code token_bucket} and {@code gcra} the rate is limit / period and the capacity is burst;
 * the window algorithms count {@code limit} per window of {@code periodMs} and ignore burst. For
 * {@code calendar_window}, {@code periodMs} holds the window's END in whole Unix seconds
 * ({@link #calendarWindow}): its windows are not multiples of a period. For {@code concurrency}
 * ({@link #lease}), {@code limit} is how many requests may be in flight, {@code periodMs} holds the lease's
 * duration in ms and {@code burst} the lease's id; its cost is always 1 (one lease).
 */
public record Policy(Algorithm algorithm, long limit, long periodMs, long burst, long cost) {

    /** The largest cost a check may spend, as the scripts take it. */
    public static final long MAX_COST = 1_000_000_000_000L;

    /** A policy whose checks spend one unit each. */
    public Policy(Algorithm algorithm, long limit, long periodMs, long burst) {
        this(algorithm, limit, periodMs, burst, 1);
    }

    public Policy {
        if (algorithm == null) {
            throw new IllegalArgumentException("algorithm must be set");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        if (periodMs < 1) {
            throw new IllegalArgumentException("periodMs must be >= 1, was " + periodMs);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be >= 1, was " + burst);
        }
        if (cost < 1 || cost > MAX_COST) {
            throw new IllegalArgumentException("cost must be from 1 to " + MAX_COST + ", was " + cost);
        }
        if (algorithm == Algorithm.CONCURRENCY && cost != 1) {
            throw new IllegalArgumentException("cost of a concurrency policy must be 1 (one lease), was " + cost);
        }
    }

    /**
     * At most {@code limit} in the calendar window that ends at {@code endEpochSecond}, each check spending
     * {@code cost}.
     */
    public static Policy calendarWindow(long limit, long endEpochSecond, long cost) {
        return new Policy(Algorithm.CALENDAR_WINDOW, limit, endEpochSecond, 1, cost);
    }

    /**
     * At most {@code limit} requests in flight, the check taking lease {@code leaseId} for at most {@code leaseMs}
     * (given back earlier by {@code ZREM} of the id, {@link InMemoryCounters#release}).
     *
     * @param leaseId
     * the lease's id, from 1 to {@link #MAX_COST}, fresh per request: it is what the release names
     */
    public static Policy lease(long limit, long leaseMs, long leaseId) {
        if (leaseId < 1 || leaseId > MAX_COST) {
            throw new IllegalArgumentException("leaseId must be from 1 to " + MAX_COST + ", was " + leaseId);
        }
        return new Policy(Algorithm.CONCURRENCY, limit, leaseMs, leaseId, 1);
    }

    /** This policy with checks that spend {@code cost} units each. */
    public Policy withCost(long cost) {
        return cost == this.cost ? this : new Policy(algorithm, limit, periodMs, burst, cost);
    }
}
