package io.tollgate.gateway.limiter;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What the limiter says about one request: pass, 429, 503 (store down, failure mode closed) or 401
 * (a key is missing), with every rule's decision for the headers.
 *
 * @param decisions one per rule that was checked
 * @param missingKey what is missing (a header name) when a rule needs a key the request lacks
 */
public record Verdict(List<RuleDecision> decisions, Optional<String> missingKey) {

    static Verdict missing(String what) {
        return new Verdict(List.of(), Optional.of(what));
    }

    static Verdict of(List<RuleDecision> decisions) {
        return new Verdict(List.copyOf(decisions), Optional.empty());
    }

    /** Whether the request goes to the backend. */
    public boolean allowed() {
        return missingKey.isEmpty() && decisions.stream().allMatch(d -> d.outcome().passes());
    }

    /** Whether the store failed and a {@code closed} rule stops the request (503). */
    public boolean unavailable() {
        return decisions.stream().anyMatch(RuleDecision::unavailable);
    }

    /** The rules that stopped the request (empty when allowed). */
    public List<RuleDecision> violated() {
        return decisions.stream().filter(d -> !d.outcome().passes()).toList();
    }

    /** The enforced (non-shadow) decision with the least remaining: the one the headers report. */
    public Optional<RuleDecision> tightest() {
        return decisions.stream()
                .filter(d -> !d.rule().shadow())
                .min(Comparator.comparingLong((RuleDecision d) -> d.decision().remaining())
                        .thenComparing(Comparator.comparingLong((RuleDecision d) -> d.decision().retryAfterMs())
                                .reversed()));
    }

    /** How long until every violated rule would allow the request again. */
    public long retryAfterMs() {
        return violated().stream().mapToLong(d -> d.decision().retryAfterMs()).max().orElse(0);
    }
}
