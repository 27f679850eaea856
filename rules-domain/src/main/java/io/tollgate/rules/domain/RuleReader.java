package io.tollgate.rules.domain;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.tollgate.counter.Algorithm;

/**
 * Turns one JSON/YAML object into a {@link Rule}: the text forms become typed values here (through
 * {@link JsonFields}), then {@link RuleValidator} checks the values; every bad field of both steps is
 * reported together.
 */
final class RuleReader {

    private static final Set<String> FIELDS = Set.of("id", "description", "match", "key", "algorithm", "limit",
            "period", "burst", "cost", "unit", "calendar", "settle", "lease", "slot_ttl", "failure_mode", "shadow",
            "enabled", "missing_key", "plans");
    private static final Set<String> SETTLE_FIELDS = Set.of("from", "otherwise");
    private static final Set<String> MATCH_FIELDS = Set.of("methods", "path");

    private RuleReader() {
    }

    /** The rule in {@code node}, or every reason it is not one. */
    static Rule read(JsonNode node) {
        JsonFields in = new JsonFields();
        Rule rule = readText(node, in);
        if (rule != null) {
            in.addUnreported(RuleValidator.validate(rule));
        }
        in.throwIfAny();
        return rule;
    }

    /**
     * The rule in {@code node} as far as its text goes, its values not yet validated: wrong types and
     * syntax are noted in {@code in} (the field then holds its default); {@code null} when {@code node} is
     * not an object.
     */
    static Rule readText(JsonNode node, JsonFields in) {
        if (node == null || !node.isObject()) {
            in.reject("", Values.show(node), "must be an object (a rule)");
            return null;
        }
        return rule(node, in);
    }

    private static Rule rule(JsonNode node, JsonFields in) {
        in.rejectUnknown(node, FIELDS, "");
        String id = in.text(node, "id", "id");
        String description = in.text(node, "description", "description");
        RuleMatch match = match(node.get("match"), in);
        KeySpec key = in.parsed(node, "key", KeySpec::parse, "api_key, tenant, ip, global or header:<Name>");
        Algorithm algorithm = in.parsed(node, "algorithm",
                name -> Algorithm.fromWireName(name).filter(a -> a != Algorithm.CALENDAR_WINDOW),
                "token_bucket, gcra, sliding_window, fixed_window or concurrency");
        Long limit = in.whole(node, "limit");
        if (limit == null && !in.reported("limit")) {
            in.reject("limit", null, "is required");
        }
        Duration period = in.parsed(node, "period", Periods::parse,
                "a positive whole number with s, m, h or d (1s, 10s, 1m) or ISO-8601 (PT30S)");
        Long burst = in.whole(node, "burst");
        if (burst == null && !node.has("burst")) {
            // burst defaults to limit; a bad limit is reported once, not again as a bad burst
            in.settle("burst");
            burst = limit;
        }
        Long cost = in.whole(node, "cost");
        Unit unit = in.parsed(node, "unit", Unit::fromWireName, "requests, tokens or content-bytes");
        String calendar = in.text(node, "calendar", "calendar");
        Duration slotTtl = in.parsed(node, "slot_ttl", Periods::parse, Constraints.SLOT_TTL);
        Leasing leasing = null;
        if (algorithm == Algorithm.CONCURRENCY) {
            slotTtl = deprecatedSlotTtl(node, slotTtl, in);
        } else if (in.reported("algorithm")) {
            // which form lease takes follows the algorithm, unknown here: only what neither form reads is reported
            in.parsed(node, "lease", text -> Leasing.fromWireName(text).map(Object.class::cast)
                    .or(() -> Periods.parse(text)), "auto or off, or with concurrency a duration (60s, 5m)");
        } else {
            leasing = in.parsed(node, "lease", Leasing::fromWireName, Constraints.TOKEN_LEASE);
        }
        FailureMode failureMode = in.parsed(node, "failure_mode", FailureMode::fromWireName,
                "open, closed or local");
        Boolean shadow = in.bool(node, "shadow");
        Boolean enabled = in.bool(node, "enabled");
        MissingKey missingKey = in.parsed(node, "missing_key", MissingKey::fromWireName, "reject or skip");
        Map<String, Limits> plans = LimitsReader.readMap(node.get("plans"), "plans", in);
        return new Rule(id, description, match, key, algorithm, orZero(limit), period, orZero(burst), failureMode,
                shadow != null && shadow, enabled == null || enabled, missingKey, plans,
                cost == null ? 1 : cost, unit, calendar, settle(node.get("settle"), in), slotTtl, leasing);
    }

    /**
     * A concurrency rule's slot time to live under {@code lease}, the deprecated name of {@code slot_ttl} that rule
     * files may still carry: read as {@code slot_ttl} is when that is absent; both at once is refused, naming
     * {@code lease}.
     */
    private static Duration deprecatedSlotTtl(JsonNode node, Duration slotTtl, JsonFields in) {
        if (!node.has("lease")) {
            return slotTtl;
        }
        if (node.has("slot_ttl")) {
            in.reject("lease", Values.show(node.get("lease")), "must be left out with slot_ttl (lease is its"
                    + " deprecated name)");
            return slotTtl;
        }
        return in.parsed(node, "lease", Periods::parse, Constraints.SLOT_TTL + " (lease is the deprecated name of"
                + " slot_ttl)");
    }

    private static Settle settle(JsonNode node, JsonFields in) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            in.reject("settle", Values.show(node), "must be an object with from (e.g. {\"from\": \"header:X-Usage\"})");
            return null;
        }
        in.rejectUnknown(node, SETTLE_FIELDS, "settle.");
        String from = in.text(node, "from", "settle.from");
        Long otherwise = in.whole(node, "otherwise", "settle.otherwise");
        return in.reported("settle.from") ? null : new Settle(from, otherwise);
    }

    private static RuleMatch match(JsonNode node, JsonFields in) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            in.reject("match", Values.show(node), "must be an object with methods and path");
            in.settle("match.path");
            return null;
        }
        in.rejectUnknown(node, MATCH_FIELDS, "match.");
        String path = in.text(node, "path", "match.path");
        return new RuleMatch(methods(node.get("methods"), in), path == null && !node.has("path") ? "/**" : path);
    }

    private static List<String> methods(JsonNode node, JsonFields in) {
        List<String> methods = new ArrayList<>();
        if (node == null || node.isNull()) {
            return methods;
        }
        if (!node.isArray()) {
            in.reject("match.methods", Values.show(node), "must be a list of HTTP methods");
            return methods;
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode method = node.get(i);
            if (method.isTextual()) {
                methods.add(method.textValue().toUpperCase(Locale.ROOT));
            } else {
                in.reject("match.methods[" + i + "]", Values.show(method), "must be a string");
                methods.add("GET"); // keeps later indexes aligned with the input
            }
        }
        return methods;
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
