package io.tollgate.gateway.http;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.Unit;
import io.vertx.core.MultiMap;

/**
 * Every rate-limit header name the gateway writes, and how each value is computed (docs/http.md):
 * the IETF draft-11 structured fields and the older trio most clients read today. Quota and window are those of
 * the policy the rule applied to the client (its plan's or override, else the rule's own).
 */
final class RateLimitHeaders {

    static final String POLICY = "RateLimit-Policy";
    static final String RATE_LIMIT = "RateLimit";
    static final String LIMIT = "RateLimit-Limit";
    static final String REMAINING = "RateLimit-Remaining";
    static final String RESET = "RateLimit-Reset";
    static final String RETRY_AFTER = "Retry-After";
    static final String CACHE_CONTROL = "Cache-Control";
    static final String NO_STORE = "no-store";

    private RateLimitHeaders() {
    }

    /** Writes the headers of the reported decision (the enforced one with the least remaining). */
    static void write(MultiMap headers, RuleDecision reported) {
        Rule rule = reported.rule();
        Effective policy = reported.effective();
        Decision decision = reported.decision();
        long quota = quota(rule.algorithm(), policy);
        long resetSeconds = seconds(decision.resetMs());
        String policyField;
        if (rule.algorithm() == Algorithm.CONCURRENCY) {
            // slots, not a quota over time: no window
            policyField = "\"" + rule.id() + "\";q=" + quota + ";qu=\"concurrent-requests\"";
        } else {
            String unit = rule.unit() == Unit.REQUESTS ? "" : ";qu=\"" + rule.unit().wireName() + "\"";
            policyField = "\"" + rule.id() + "\";q=" + quota + ";w=" + windowSeconds(rule.algorithm(), policy) + unit;
        }
        headers.set(POLICY, policyField);
        // a bucket in debt holds less than nothing; the headers say none is left (the 429 problem says what is owed)
        long remaining = Math.max(0, decision.remaining());
        headers.set(RATE_LIMIT, "\"" + rule.id() + "\";r=" + remaining + ";t=" + resetSeconds);
        headers.set(LIMIT, Long.toString(quota));
        headers.set(REMAINING, Long.toString(remaining));
        headers.set(RESET, Long.toString(resetSeconds));
    }

    /** {@code Retry-After} in whole seconds: rounded up, never below 1 (0 would invite an instant retry). */
    static long retryAfterSeconds(long retryAfterMs) {
        return Math.max(1, seconds(retryAfterMs));
    }

    /** The most a client can send at once: the burst for buckets, the limit for windows; 0 when blocked. */
    private static long quota(Algorithm algorithm, Effective policy) {
        if (policy.blocks()) {
            return 0;
        }
        return isBucket(algorithm) ? policy.burst() : policy.limit();
    }

    /** The window of the quota: for buckets the time a full burst takes to refill, else (and when blocked) the period. */
    private static long windowSeconds(Algorithm algorithm, Effective policy) {
        long periodMs = policy.period().toMillis();
        boolean refills = isBucket(algorithm) && !policy.blocks();
        long ms = refills ? ceilDiv(policy.burst() * periodMs, policy.limit()) : periodMs;
        return Math.max(1, seconds(ms));
    }

    private static boolean isBucket(Algorithm algorithm) {
        return algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA;
    }

    private static long seconds(long ms) {
        return ceilDiv(Math.max(0, ms), 1000);
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
