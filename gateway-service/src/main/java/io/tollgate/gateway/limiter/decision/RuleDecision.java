package io.tollgate.gateway.limiter.decision;

import io.tollgate.counter.Decision;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;

/**
 * How one rule decided one request.
 *
 * @param rule the rule
 * @param decision the bucket's answer (for a fallback or cached answer, the gateway's own)
 * @param outcome how it was reached
 * @param unavailable the store failed and the rule's failure mode is {@code closed}: answer 503
 * @param effective the policy the rule applied to the request's client: its plan's, an override or the rule's own
 * @param bucket the bucket the store decided, or null when the store did not (cached, blocked, fallback)
 * @param tag the hash tag of {@code bucket} (its client's, or its tenant's), or null with it
 */
public record RuleDecision(Rule rule, Decision decision, Outcome outcome, boolean unavailable, Effective effective,
        Bucket bucket, String tag) {

    /** A decision under the rule's own policy, not the store's. */
    public RuleDecision(Rule rule, Decision decision, Outcome outcome, boolean unavailable) {
        this(rule, decision, outcome, unavailable, Effective.of(rule));
    }

    /** A decision not the store's. */
    public RuleDecision(Rule rule, Decision decision, Outcome outcome, boolean unavailable, Effective effective) {
        this(rule, decision, outcome, unavailable, effective, null, null);
    }

    public static RuleDecision of(Rule rule, Effective effective, Decision decision, Outcome outcome) {
        return new RuleDecision(rule, decision, outcome, false, effective);
    }

    /**
     * Whether the store spent from {@code bucket} for this request (it passed there, all-or-nothing, or took it
     * from a lease the store spent).
     */
    public boolean spent() {
        return bucket != null && (outcome == Outcome.ALLOWED || outcome == Outcome.LEASED);
    }
}
