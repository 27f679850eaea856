package io.tollgate.rules.domain;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads the maps of {@link Limits} a rule's {@code plans} and an entry's {@code overrides} are:
 * {@code {"free": {"limit": 2}, "pro": {"limit": 100, "burst": 200}}}, each bad field reported under its path
 * ({@code plans.free.limit}).
 */
final class LimitsReader {

    private static final Set<String> FIELDS = Set.of("limit", "period", "burst");

    private LimitsReader() {
    }

    /** The map in {@code node} (absent or null: empty), its errors noted in {@code in} under {@code field}. */
    static Map<String, Limits> readMap(JsonNode node, String field, JsonFields in) {
        Map<String, Limits> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isObject()) {
            in.reject(field, Values.show(node), "must be an object of names to {limit, period, burst}");
            return out;
        }
        Iterator<Map.Entry<String, JsonNode>> entries = node.fields();
        while (entries.hasNext()) {
            Map.Entry<String, JsonNode> entry = entries.next();
            JsonFields one = new JsonFields();
            Limits limits = read(entry.getValue(), one);
            in.adopt(one, field + "." + entry.getKey());
            out.put(entry.getKey(), limits == null ? new Limits(null, null, null) : limits);
        }
        return out;
    }

    /** One {@code {limit, period, burst}} object, or {@code null} when {@code node} is not an object. */
    static Limits read(JsonNode node, JsonFields in) {
        if (node == null || !node.isObject()) {
            in.reject("", Values.show(node), "must be an object with limit, period and/or burst");
            return null;
        }
        in.rejectUnknown(node, FIELDS, "");
        Long limit = in.whole(node, "limit");
        Duration period = in.parsed(node, "period", Periods::parse,
                "a positive whole number with s, m, h or d (1s, 10s, 1m) or ISO-8601 (PT30S)");
        Long burst = in.whole(node, "burst");
        return new Limits(limit, period, burst);
    }
}
