package io.tollgate.rules.store;

/**
 * What a PUT of one rule did.
 *
 * @param stored
 * the rule as now stored, with its version
 * @param created
 * true when the rule did not exist before
 */
public record PutOutcome(StoredRule stored, boolean created) {
}
