package io.tollgate.gateway.limiter.decision;

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

    public static Verdict missing(String what) {
        return new Verdict(List.of(), Optional.of(what));
    }

    public static Verdict of(List<RuleDecision> decisions) {
        return new Verdict(List.copyOf(decisions), Optional.empty());
    }

    /** Whether the request goes to the backend. */
    public boolean allowed() {
        if (missingKey.isPresent()) {
            return false;
        }
        for (RuleDecision d : decisions) {
            if (!d.outcome().passes()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the store failed and a {@code closed} rule stops the request (503). */
    public boolean unavailable() {
        for (RuleDecision d : decisions) {
            if (d.unavailable()) {
                return true;
            }
        }
        return false;
    }

    /** The rules that stopped the request (empty when allowed). */
    public List<RuleDecision> violated() {
        return decisions.stream().filter(d -> !d.outcome().passes()).toList();
    }

    /**
     * The enforced (non-shadow) decision with the least remaining, and of those the one that frees last:
     * the one the headers report.
     */
    public Optional<RuleDecision> tightest() {
        RuleDecision best = null;
        for (RuleDecision d : decisions) {
            if (d.rule().shadow()) {
                continue;
            }
            if (best == null || d.decision().remaining() < best.decision().remaining()
                    || (d.decision().remaining() == best.decision().remaining()
                            && d.decision().retryAfterMs() > best.decision().retryAfterMs())) {
                best = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** How long until every violated rule would allow the request again. */
    public long retryAfterMs() {
        return violated().stream().mapToLong(d -> d.decision().retryAfterMs()).max().orElse(0);
    }
}
