package io.tollgate.rules.domain;

import java.util.Arrays;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What a rule's limit counts: requests, or what requests spend (a model's tokens, a download's bytes). Named by
 * the {@code qu} parameter of {@code RateLimit-Policy} when it is not requests.
 */
public enum Unit {

    REQUESTS("requests"), TOKENS("tokens"), CONTENT_BYTES("content-bytes");

    private final String wireName;

    Unit(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in rules and headers, e.g. {@code tokens}. */
    @JsonValue
    public String wireName() {
        return wireName;
    }

    /** The unit with this wire name, if there is one. */
    public static Optional<Unit> fromWireName(String name) {
        return Arrays.stream(values()).filter(u -> u.wireName.equals(name)).findFirst();
    }
}
