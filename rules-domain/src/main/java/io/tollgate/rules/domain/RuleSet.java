package io.tollgate.rules.domain;

import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.PositiveOrZero;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Every rule at one version of the rules service.
 *
 * @param version
 * the global version; rises by one on every committed change
 * @param rules
 * the rules, ordered by id; no two share an id
 */
@JsonPropertyOrder({"version", "rules"})
public record RuleSet(
        @PositiveOrZero(message = "must be a whole number >= 0") long version,
        @UniqueIds List<@Valid Rule> rules) {

    public RuleSet {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }
}
