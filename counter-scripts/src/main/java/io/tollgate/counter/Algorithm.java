package io.tollgate.counter;

import java.util.Arrays;
import java.util.Optional;

/**
 * The counting algorithms, each with one Lua script under {@code counter-scripts/<wireName>.lua}.
 */
public enum Algorithm {

    TOKEN_BUCKET("token_bucket"), GCRA("gcra"), SLIDING_WINDOW("sliding_window"), FIXED_WINDOW("fixed_window"),
    /**
     * A fixed window on the calendar (a day, an ISO week, a month in a time zone): what a {@code fixed_window}
     * rule with {@code calendar} is checked with. Not a rule's algorithm of its own: its policy carries the
     * window's end ({@link Policy#calendarWindow}), which the caller works out.
     */
    CALENDAR_WINDOW("calendar_window"),
    /**
     * At most limit requests in flight per key: each admitted request holds a slot (stored as a member of a
     * Redis sorted set) until its response ends or the slot's time is up. Its policy carries the slot's
     * duration and id ({@link Policy#slot}); a concurrency key is given back or renewed, never charged.
     */
    CONCURRENCY("concurrency");

    private final String wireName;

    Algorithm(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in rules, in scripts and on the wire, e.g. {@code token_bucket}. */
    public String wireName() {
        return wireName;
    }

    /** The algorithm with this wire name, if there is one. */
    public static Optional<Algorithm> fromWireName(String name) {
        return Arrays.stream(values()).filter(a -> a.wireName.equals(name)).findFirst();
    }
}
