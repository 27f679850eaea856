package io.tollgate.rules.domain;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

import io.tollgate.counter.Algorithm;

/**
 * Turns one JSON/YAML object into a {@link Rule}, field by field, noting every bad field instead of
 * stopping at the first (which Jackson's data binding would do).
 */
final class RuleReader {

    private static final Set<String> FIELDS = Set.of("id", "description", "match", "key", "algorithm", "limit",
            "period", "burst", "failure_mode", "shadow", "enabled", "missing_key");
    private static final Set<String> MATCH_FIELDS = Set.of("methods", "path");

    private final List<FieldError> errors = new ArrayList<>();

    private RuleReader() {
    }

    /** The rule in {@code node}, or every reason it is not one. */
    static Rule read(JsonNode node) {
        RuleReader reader = new RuleReader();
        Rule rule = reader.rule(node);
        if (!reader.errors.isEmpty()) {
            throw new RuleValidationException(reader.errors);
        }
        return rule;
    }

    private Rule rule(JsonNode node) {
        if (node == null || !node.isObject()) {
            errors.add(new FieldError("", Values.show(node), "must be an object (a rule)"));
            return null;
        }
        rejectUnknown(node, FIELDS, "");
        Set<String> reported = new HashSet<>();
        String id = text(node, "id", reported);
        String description = text(node, "description", reported);
        RuleMatch match = match(node.get("match"), reported);
        KeySpec key = enumLike(node, "key", reported, KeySpec::parse, "api_key, ip, global or header:<Name>");
        Algorithm algorithm = enumLike(node, "algorithm", reported, Algorithm::fromWireName,
                "token_bucket, gcra, sliding_window or fixed_window");
        Long limit = whole(node, "limit", reported);
        if (limit == null && !reported.contains("limit")) {
            errors.add(new FieldError("limit", null, "is required"));
            reported.add("limit");
        }
        Duration period = enumLike(node, "period", reported, Periods::parse,
                "a positive whole number with s, m, h or d (1s, 10s, 1m) or ISO-8601 (PT30S)");
        Long burst = whole(node, "burst", reported);
        FailureMode failureMode = enumLike(node, "failure_mode", reported, FailureMode::fromWireName,
                "open, closed or local");
        Boolean shadow = bool(node, "shadow", reported);
        Boolean enabled = bool(node, "enabled", reported);
        MissingKey missingKey = enumLike(node, "missing_key", reported, MissingKey::fromWireName,
                "reject or skip");
        if (burst == null && !node.has("burst")) {
            // burst defaults to limit; a bad limit is reported once, not again as a bad burst
            reported.add("burst");
            burst = limit;
        }
        Rule rule = new Rule(id, description, match, key, algorithm, orZero(limit), period, orZero(burst),
                failureMode, shadow != null && shadow, enabled == null || enabled, missingKey);
        for (FieldError e : RuleValidator.validate(rule)) {
            if (!reported.contains(e.field())) {
                errors.add(e);
            }
        }
        return rule;
    }

    private RuleMatch match(JsonNode node, Set<String> reported) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            errors.add(new FieldError("match", Values.show(node), "must be an object with methods and path"));
            reported.add("match.path");
            return null;
        }
        rejectUnknown(node, MATCH_FIELDS, "match.");
        List<String> methods = new ArrayList<>();
        JsonNode m = node.get("methods");
        if (m != null && !m.isNull()) {
            if (!m.isArray()) {
                errors.add(new FieldError("match.methods", Values.show(m), "must be a list of HTTP methods"));
            } else {
                for (int i = 0; i < m.size(); i++) {
                    JsonNode method = m.get(i);
                    if (method.isTextual()) {
                        methods.add(method.textValue().toUpperCase(Locale.ROOT));
                    } else {
                        errors.add(new FieldError("match.methods[" + i + "]", Values.show(method),
                                "must be a string"));
                        methods.add("GET"); // keeps later indexes aligned with the input
                    }
                }
            }
        }
        String path = text(node, "path", reported, "match.path");
        return new RuleMatch(methods, path == null && !node.has("path") ? "/**" : path);
    }

    private void rejectUnknown(JsonNode node, Set<String> known, String prefix) {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                errors.add(new FieldError(prefix + name, Values.show(node.get(name)), "unknown field"));
            }
        }
    }

    private String text(JsonNode node, String field, Set<String> reported) {
        return text(node, field, reported, field);
    }

    private String text(JsonNode node, String field, Set<String> reported, String path) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new FieldError(path, Values.show(v), "must be a string"));
            reported.add(path);
            return null;
        }
        return v.textValue();
    }

    private Long whole(JsonNode node, String field, Set<String> reported) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            errors.add(new FieldError(field, Values.show(v), "must be a whole number"));
            reported.add(field);
            return null;
        }
        return v.longValue();
    }

    private Boolean bool(JsonNode node, String field, Set<String> reported) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isBoolean()) {
            errors.add(new FieldError(field, Values.show(v), "must be true or false"));
            reported.add(field);
            return null;
        }
        return v.booleanValue();
    }

    private <T> T enumLike(JsonNode node, String field, Set<String> reported,
            Function<String, Optional<T>> parse, String expected) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        T value = v.isTextual() ? parse.apply(v.textValue()).orElse(null) : null;
        if (value == null) {
            errors.add(new FieldError(field, Values.show(v), "must be " + expected));
            reported.add(field);
        }
        return value;
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
