package io.tollgate.rules.domain;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Whether a gateway may lease tokens of a rule's buckets: take several of a busy client's tokens in one store call
 * and admit that client's next requests itself. Only {@code token_bucket} and {@code gcra} rules lease
 * ({@link Rule#leases()}); a window never does.
 */
public enum Leasing {

    /** A gateway leases tokens of a busy client's bucket when that saves store calls (the default). */
    AUTO,
    /** Every request of the rule goes to the store: the rule sees each one as it comes. */
    OFF;

    /** The name used in rules: {@code auto} or {@code off}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The option with this wire name, if there is one. */
    public static Optional<Leasing> fromWireName(String name) {
        return Arrays.stream(values()).filter(l -> l.wireName().equals(name)).findFirst();
    }
}
