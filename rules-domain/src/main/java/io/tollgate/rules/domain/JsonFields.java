package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads typed fields out of one JSON/YAML object and notes every one of the wrong type or syntax, instead
 * of stopping at the first as Jackson's data binding would. A field reported here is not reported again
 * by the validator (a limit of {@code "ten"} is "not a whole number", not also "below 1").
 */
final class JsonFields {

    private final List<FieldError> errors = new ArrayList<>();
    private final Set<String> reported = new HashSet<>();

    /** Reports {@code field} as bad, and keeps later checks quiet about it. */
    void reject(String field, String value, String reason) {
        errors.add(new FieldError(field, value, reason));
        reported.add(field);
    }

    /** Marks {@code field} as dealt with, without an error of its own. */
    void settle(String field) {
        reported.add(field);
    }

    boolean reported(String field) {
        return reported.contains(field);
    }

    /** Adds the validator's errors on fields not already reported. */
    void addUnreported(List<FieldError> more) {
        more.stream().filter(e -> !reported.contains(e.field())).forEach(errors::add);
    }

    /** Takes over the errors {@code one} noted on a list element, placed under {@code prefix}. */
    void adopt(JsonFields one, String prefix) {
        one.errors.forEach(e -> errors.add(e.under(prefix)));
        one.reported.forEach(f -> reported.add(FieldError.placed(prefix, f)));
    }

    /** Throws with every error noted, if any. */
    void throwIfAny() {
        if (!errors.isEmpty()) {
            throw new RuleValidationException(errors);
        }
    }

    void rejectUnknown(JsonNode node, Set<String> known, String prefix) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                reject(prefix + name, Values.show(node.get(name)), "unknown field");
            }
        }
    }

    String text(JsonNode node, String field, String path) {
        JsonNode v = present(node, field);
        if (v != null && !v.isTextual()) {
            reject(path, Values.show(v), "must be a string");
            return null;
        }
        return v == null ? null : v.textValue();
    }

    Long whole(JsonNode node, String field) {
        return whole(node, field, field);
    }

    /** A whole number at {@code field} of {@code node}, reported as {@code path} when it is not one. */
    Long whole(JsonNode node, String field, String path) {
        JsonNode v = present(node, field);
        if (v != null && (!v.isIntegralNumber() || !v.canConvertToLong())) {
            reject(path, Values.show(v), "must be a whole number");
            return null;
        }
        return v == null ? null : v.longValue();
    }

    Boolean bool(JsonNode node, String field) {
        JsonNode v = present(node, field);
        if (v != null && !v.isBoolean()) {
            reject(field, Values.show(v), "must be true or false");
            return null;
        }
        return v == null ? null : v.booleanValue();
    }

    /** A field whose text names a typed value ({@code parse} says which), or {@code null}. */
    <T> T parsed(JsonNode node, String field, Function<String, Optional<T>> parse, String expected) {
        JsonNode v = present(node, field);
        if (v == null) {
            return null;
        }
        T value = v.isTextual() ? parse.apply(v.textValue()).orElse(null) : null;
        if (value == null) {
            reject(field, Values.show(v), "must be " + expected);
        }
        return value;
    }

    private static JsonNode present(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v;
    }
}
