package io.tollgate.rules.domain;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Which requests a rule applies to.
 *
 * @param methods
 * HTTP methods in upper case; empty means any method
 * @param path
 * a {@link PathPattern} glob such as {@code /orders/**}
 */
@JsonPropertyOrder({"methods", "path"})
public record RuleMatch(List<@HttpMethod String> methods, @PathGlob String path) {

    /** Any method, any path. */
    public static final RuleMatch ANY = new RuleMatch(List.of(), "/**");

    public RuleMatch {
        methods = methods == null ? List.of() : List.copyOf(methods);
    }

    /** Whether this match applies to {@code method} (case-sensitive, upper case as HTTP sends it). */
    public boolean matchesMethod(String method) {
        return methods.isEmpty() || methods.contains(method);
    }
}
