package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Turns a JSON/YAML rule set ({@code {"version": N, "rules": [...]}}) or a bare list of rules into values,
 * reporting every bad field of every rule at once, each under its place ({@code rules[2].limit}).
 */
final class RuleSetReader {

    private static final Set<String> FIELDS = Set.of("version", "rules");
    private static final String RULES = "rules";

    private RuleSetReader() {
    }

    /** The set in {@code root}; the version may be left out (it is then 0). */
    static RuleSet readSet(JsonNode root) {
        JsonFields in = new JsonFields();
        if (!root.isObject()) {
            in.reject("", Values.show(root), "must be an object with \"rules\" (and optionally \"version\")");
            in.throwIfAny();
        }
        in.rejectUnknown(root, FIELDS, "");
        Long version = in.whole(root, "version");
        JsonNode rules = root.get(RULES);
        if (rules == null || !rules.isArray()) {
            in.reject(RULES, Values.show(rules), "is required: a list of rules");
            in.throwIfAny();
        }
        RuleSet set = read(rules, version == null ? 0 : version, RULES, in);
        in.throwIfAny();
        return set;
    }

    /** The rules of a bare JSON/YAML list; errors are placed as {@code [2].limit}. */
    static List<Rule> readList(JsonNode array) {
        JsonFields in = new JsonFields();
        RuleSet set = read(array, 0, "", in);
        in.throwIfAny();
        return set.rules();
    }

    private static RuleSet read(JsonNode array, long version, String prefix, JsonFields in) {
        List<Rule> rules = new ArrayList<>();
        List<String> places = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            JsonFields one = new JsonFields();
            Rule rule = RuleReader.readText(array.get(i), one);
            in.adopt(one, prefix + "[" + i + "]");
            if (rule != null) {
                rules.add(rule);
                places.add(prefix + "[" + i + "]");
            }
        }
        if (rules.size() < array.size()) {
            // an element that is no object leaves a hole in the set, so its rules are checked one by one
            for (int k = 0; k < rules.size(); k++) {
                String place = places.get(k);
                in.addUnreported(RuleValidator.validate(rules.get(k)).stream().map(e -> e.under(place)).toList());
            }
            return new RuleSet(version, List.of());
        }
        RuleSet set = new RuleSet(version, rules);
        // one pass checks each rule's values (rules[i].limit), the ids across rules and the version
        in.addUnreported(RuleValidator.validate(set).stream().map(e -> placed(e, prefix)).toList());
        return set;
    }

    /** The validator names a set's fields under {@code rules}; a bare list's sit under {@code prefix}. */
    private static FieldError placed(FieldError e, String prefix) {
        if (prefix.equals(RULES) || !e.field().startsWith(RULES + "[")) {
            return e;
        }
        return new FieldError(prefix + e.field().substring(RULES.length()), e.value(), e.reason());
    }
}
