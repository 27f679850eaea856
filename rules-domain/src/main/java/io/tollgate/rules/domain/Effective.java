package io.tollgate.rules.domain;

import java.time.Duration;

import io.tollgate.counter.Policy;

/**
 * The policy a rule applies to one client: the client's (for a rule keyed {@code tenant}, the tenant's)
 * override for the rule, else the rule's entry for the client's plan, else the rule's own
 * (docs/clients-plans-tenants.md). Computed once per rule and plan, or per override, never per request.
 *
 * @param limit
 * requests per period; 0: every request is rejected, without asking the store
 * @param period
 * the period of {@code limit}
 * @param burst
 * the bucket's capacity
 * @param source
 * {@code rule}, {@code plan:<name>} or {@code override}, as {@code explain} reports it
 * @param policy
 * what the counter scripts are given; {@code null} when {@code limit} is 0
 */
public record Effective(long limit, Duration period, long burst, String source, Policy policy) {

    public static final String RULE = "rule";
    public static final String OVERRIDE = "override";
    public static final String PLAN_PREFIX = "plan:";

    /** The rule's own policy. */
    public static Effective of(Rule rule) {
        return new Effective(rule.limit(), rule.period(), rule.burst(), RULE, rule.policy());
    }

    /** What {@code limits} make of {@code rule}, reported as {@code source}. */
    public static Effective of(Rule rule, Limits limits, String source) {
        long limit = limits.limitOr(rule.limit());
        Duration period = limits.periodOr(rule.period());
        long burst = limits.burstOr(rule.burst());
        Policy policy = limit == 0 ? null : new Policy(rule.algorithm(), limit, period.toMillis(), burst, rule.cost());
        return new Effective(limit, period, burst, source, policy);
    }

    /**
     * The effective policy of {@code rule} for a client on {@code plan} (may be {@code null}) with
     * {@code override} (may be {@code null}) for this rule.
     */
    public static Effective resolve(Rule rule, String plan, Limits override) {
        if (override != null) {
            return of(rule, override, OVERRIDE);
        }
        Limits planned = plan == null ? null : rule.plans().get(plan);
        return planned != null ? of(rule, planned, PLAN_PREFIX + plan) : of(rule);
    }

    /** Whether every request is rejected ({@code limit: 0}). */
    public boolean blocks() {
        return policy == null;
    }
}
