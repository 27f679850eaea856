package io.tollgate.gateway.rules;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.PathPattern;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleSet;

/**
 * One rule-set version compiled for matching: enabled rules only, path patterns compiled once, and
 * indexed by their first literal segment so a request looks only at the rules that can match its first
 * segment plus those that start with a wildcard, never at the whole set.
 */
final class CompiledRules {

    static final CompiledRules EMPTY = new CompiledRules(new RuleSet(0, List.of()));

    private record Entry(Rule rule, PathPattern pattern) {
    }

    private final RuleSet source;
    private final Map<String, List<Entry>> byFirstSegment = new HashMap<>();
    private final List<Entry> wildcardFirst = new ArrayList<>();
    /** The header names {@code header:} keys count by, in lower case: of every rule of the set, enabled or not. */
    private final Set<String> keyHeaders = new HashSet<>();

    CompiledRules(RuleSet source) {
        this.source = source;
        for (Rule rule : source.rules()) {
            if (rule.key().kind() == KeySpec.Kind.HEADER) {
                keyHeaders.add(rule.key().header().toLowerCase(Locale.ROOT));
            }
            if (!rule.enabled()) {
                continue;
            }
            Entry entry = new Entry(rule, rule.pathPattern());
            String first = firstSegment(rule.match().path());
            if (first.isEmpty() || first.equals("*") || first.equals("**")) {
                wildcardFirst.add(entry);
            } else {
                byFirstSegment.computeIfAbsent(first, k -> new ArrayList<>()).add(entry);
            }
        }
    }

    RuleSet source() {
        return source;
    }

    /** The header names (lower case) that a {@code header:} key of the set counts by. */
    Set<String> keyHeaders() {
        return keyHeaders;
    }

    /** The enabled rules that apply to {@code method} on {@code path} (no query string), in set order. */
    List<Rule> match(String method, String path) {
        List<Entry> literal = byFirstSegment.getOrDefault(firstSegment(path), List.of());
        if (literal.isEmpty() && wildcardFirst.isEmpty()) {
            return List.of();
        }
        List<Rule> out = new ArrayList<>(2);
        collect(literal, method, path, out);
        collect(wildcardFirst, method, path, out);
        return out;
    }

    private static void collect(List<Entry> entries, String method, String path, List<Rule> out) {
        for (Entry e : entries) {
            if (e.rule().match().matchesMethod(method) && e.pattern().matches(path)) {
                out.add(e.rule());
            }
        }
    }

    /** The first non-empty segment of a path or glob, or "" for the root. */
    static String firstSegment(String path) {
        int start = 0;
        while (start < path.length() && path.charAt(start) == '/') {
            start++;
        }
        int end = path.indexOf('/', start);
        return path.substring(start, end < 0 ? path.length() : end);
    }
}
