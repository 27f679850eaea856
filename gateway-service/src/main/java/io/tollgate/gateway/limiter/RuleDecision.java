package io.tollgate.gateway.limiter;

import io.tollgate.counter.Decision;
import io.tollgate.rules.domain.Rule;

/**
 * How one rule decided one request.
 *
 * @param rule the rule
 * @param decision the bucket's answer (for a fallback or cached answer, the gateway's own)
 * @param outcome how it was reached
 * @param unavailable the store failed and the rule's failure mode is {@code closed}: answer 503
 */
public record RuleDecision(Rule rule, Decision decision, Outcome outcome, boolean unavailable) {

    static RuleDecision of(Rule rule, Decision decision, Outcome outcome) {
        return new RuleDecision(rule, decision, outcome, false);
    }
}
