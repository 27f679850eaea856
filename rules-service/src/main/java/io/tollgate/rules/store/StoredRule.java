package io.tollgate.rules.store;

import io.tollgate.rules.domain.Rule;

/**
 * A rule as stored.
 *
 * @param rule
 * the rule
 * @param version
 * the global version at which it last changed; its ETag
 */
public record StoredRule(Rule rule, long version) {
}
