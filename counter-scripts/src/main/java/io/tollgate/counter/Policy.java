package io.tollgate.counter;

/**
 * What one bucket allows, and what one check spends from it ({@code cost} units, a request of the rule). Each field
 * holds one thing; which ones an algorithm reads depends on it:
 * <ul>
 * <li>{@code token_bucket} and {@code gcra}: {@code limit} per {@code periodMs} is the rate, {@code burst} the
 * capacity.</li>
 * <li>{@code fixed_window} and {@code sliding_window}: {@code limit} per window of {@code periodMs}; burst is
 * ignored.</li>
 * <li>{@code calendar_window} ({@link #calendarWindow}): {@code limit} in the window that ends at
 * {@code windowEndSecond}, whole Unix seconds (its windows are not multiples of a period: {@code periodMs} is
 * 0).</li>
 * <li>{@code concurrency} ({@link #slot}): {@code limit} requests in flight, each holding a slot; this check
 * takes slot {@code slotId} for at most {@code periodMs}. Its cost is always 1 (one slot).</li>
 * </ul>
 * How these travel to the script (which ARGV slot carries which field) is {@link CheckCall}'s alone.
 *
 * @param windowEndSecond
 * the end of a calendar window in whole Unix seconds; 0 for the other algorithms
 * @param slotId
 * the id of the slot a concurrency check takes, from 1 to {@link #MAX_COST}; 0 for the other algorithms, and for a
 * concurrency rule's policy before a request takes a slot (it cannot be checked: {@link #slot} names one)
 */
public record Policy(Algorithm algorithm, long limit, long periodMs, long burst, long cost, long windowEndSecond,
        long slotId) {

    /** The largest cost a check may spend, as the scripts take it. */
    public static final long MAX_COST = 1_000_000_000_000L;

    /** A policy whose checks spend one unit each. */
    public Policy(Algorithm algorithm, long limit, long periodMs, long burst) {
        this(algorithm, limit, periodMs, burst, 1);
    }

    /**
     * A policy of an algorithm with a fixed period ({@code token_bucket}, {@code gcra}, {@code fixed_window},
     * {@code sliding_window}), or a concurrency rule's before a request takes a slot; a calendar window is made by
     * {@link #calendarWindow}, a check's concurrency slot by {@link #slot}.
     */
    public Policy(Algorithm algorithm, long limit, long periodMs, long burst, long cost) {
        this(algorithm, limit, periodMs, burst, cost, 0, 0);
    }

    public Policy {
        if (algorithm == null) {
            throw new IllegalArgumentException("algorithm must be set");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        checkPeriod(algorithm, periodMs, windowEndSecond);
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be >= 1, was " + burst);
        }
        if (cost < 1 || cost > MAX_COST) {
            throw new IllegalArgumentException("cost must be from 1 to " + MAX_COST + ", was " + cost);
        }
        checkSlot(algorithm, cost, slotId);
    }

    /**
     * At most {@code limit} in the calendar window that ends at {@code endEpochSecond}, each check spending
     * {@code cost}.
     */
    public static Policy calendarWindow(long limit, long endEpochSecond, long cost) {
        return new Policy(Algorithm.CALENDAR_WINDOW, limit, 0, 1, cost, endEpochSecond, 0);
    }

    /**
     * At most {@code limit} requests in flight, the check taking slot {@code slotId} for at most {@code slotTtlMs}
     * (given back earlier by {@code ZREM} of the id, {@link InMemoryCounters#releaseSlot}).
     *
     * @param slotId
     * the slot's id, from 1 to {@link #MAX_COST}, fresh per request: it is what the release names
     */
    public static Policy slot(long limit, long slotTtlMs, long slotId) {
        if (slotId < 1) {
            throw new IllegalArgumentException("slotId must be from 1 to " + MAX_COST + ", was " + slotId);
        }
        return new Policy(Algorithm.CONCURRENCY, limit, slotTtlMs, 1, 1, 0, slotId);
    }

    /** A calendar window has an end and no period; the other algorithms a period and no end. */
    private static void checkPeriod(Algorithm algorithm, long periodMs, long windowEndSecond) {
        if (algorithm == Algorithm.CALENDAR_WINDOW) {
            if (periodMs != 0) {
                throw new IllegalArgumentException("periodMs of a calendar window must be 0, was " + periodMs);
            }
            if (windowEndSecond < 1) {
                throw new IllegalArgumentException("windowEndSecond must be >= 1, was " + windowEndSecond);
            }
        } else {
            if (periodMs < 1) {
                throw new IllegalArgumentException("periodMs must be >= 1, was " + periodMs);
            }
            if (windowEndSecond != 0) {
                throw new IllegalArgumentException("windowEndSecond belongs to a calendar window (Policy.calendarWindow),"
                        + " was " + windowEndSecond);
            }
        }
    }

    /** A concurrency check takes one slot (cost 1) named by its id; the other algorithms have no slot. */
    private static void checkSlot(Algorithm algorithm, long cost, long slotId) {
        if (algorithm == Algorithm.CONCURRENCY) {
            if (cost != 1) {
                throw new IllegalArgumentException("cost of a concurrency policy must be 1 (one slot), was " + cost);
            }
            if (slotId < 0 || slotId > MAX_COST) {
                throw new IllegalArgumentException("slotId must be from 1 to " + MAX_COST + " (0: no slot yet), was "
                        + slotId);
            }
        } else if (slotId != 0) {
            throw new IllegalArgumentException("slotId belongs to a concurrency policy (Policy.slot), was " + slotId);
        }
    }

    /** This policy with checks that spend {@code cost} units each. */
    public Policy withCost(long cost) {
        if (cost == this.cost) {
            return this;
        }
        return new Policy(algorithm, limit, periodMs, burst, cost, windowEndSecond, slotId);
    }
}
