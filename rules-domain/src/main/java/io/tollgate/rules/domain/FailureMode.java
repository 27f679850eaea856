package io.tollgate.rules.domain;

import java.util.Arrays;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/** What a check does when the counter store cannot answer in time. */
public enum FailureMode {

    /** Allow the request. */
    OPEN("open"),
    /** Reject the request with 503. */
    CLOSED("closed"),
    /** Fall back to an in-process limiter at limit ÷ live gateways (at least 1). */
    LOCAL("local");

    private final String wireName;

    FailureMode(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in rules, e.g. {@code local}. */
    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** The mode with this wire name, if there is one. */
    public static Optional<FailureMode> fromWireName(String name) {
        return Arrays.stream(values()).filter(m -> m.wireName.equals(name)).findFirst();
    }
}
