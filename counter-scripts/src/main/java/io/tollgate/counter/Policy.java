package io.tollgate.counter;

/**
 * What one bucket allows: {@code limit} units per {@code periodMs}, holding at most {@code burst}, and what one
 * check spends from it: {@code cost} units (a request of the rule).
 * <p>
 * For {@code token_bucket} and {@code gcra} the rate is limit / period and the capacity is burst;
 * the window algorithms count {@code limit} per window of {@code periodMs} and ignore burst. For
 * {@code calendar_window}, {@code periodMs} holds the window's END in whole Unix seconds
 * ({@link #calendarWindow}): its windows are not multiples of a period.
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
    }

    /**
     * At most {@code limit} in the calendar window that ends at {@code endEpochSecond}, each check spending
     * {@code cost}.
     */
    public static Policy calendarWindow(long limit, long endEpochSecond, long cost) {
        return new Policy(Algorithm.CALENDAR_WINDOW, limit, endEpochSecond, 1, cost);
    }

    /** This policy with checks that spend {@code cost} units each. */
    public Policy withCost(long cost) {
        return cost == this.cost ? this : new Policy(algorithm, limit, periodMs, burst, cost);
    }
}
