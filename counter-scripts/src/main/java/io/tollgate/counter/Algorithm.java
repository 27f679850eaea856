package io.tollgate.counter;

import java.util.Arrays;
import java.util.Optional;

/**
 * The counting algorithms, each with one Lua script under {@code counter-scripts/<wireName>.lua}.
 */
public enum Algorithm {

    TOKEN_BUCKET("token_bucket"), GCRA("gcra"), SLIDING_WINDOW("sliding_window"), FIXED_WINDOW("fixed_window");

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
