package io.tollgate.rules.domain;

import java.util.Arrays;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/** What a rule does with a request that lacks the client key it needs. */
public enum MissingKey {

    /** Answer 401 problem+json naming what is missing. */
    REJECT("reject"),
    /** Let the request through without applying this rule. */
    SKIP("skip");

    private final String wireName;

    MissingKey(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in rules, e.g. {@code reject}. */
    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** The option with this wire name, if there is one. */
    public static Optional<MissingKey> fromWireName(String name) {
        return Arrays.stream(values()).filter(m -> m.wireName.equals(name)).findFirst();
    }
}
