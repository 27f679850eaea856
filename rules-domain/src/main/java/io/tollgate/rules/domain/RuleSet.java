package io.tollgate.rules.domain;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Every rule at one version of the rules service.
 *
 * @param version
 * the global version; rises by one on every committed change
 * @param rules
 * the rules, ordered by id
 */
@JsonPropertyOrder({"version", "rules"})
public record RuleSet(long version, List<Rule> rules) {

    public RuleSet {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }
}
