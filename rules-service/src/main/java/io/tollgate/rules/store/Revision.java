package io.tollgate.rules.store;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.tollgate.rules.domain.Rule;

/**
 * One committed change to one rule.
 *
 * @param version
 * the global version the change committed as
 * @param id
 * the rule's id
 * @param operation
 * what was done
 * @param actor
 * the name of the token that did it
 * @param at
 * when
 * @param rule
 * the rule after the change; for a delete, the rule as it was
 */
@JsonPropertyOrder({"version", "id", "operation", "actor", "at", "rule"})
public record Revision(long version, String id, Operation operation, String actor, Instant at, Rule rule) {
}
