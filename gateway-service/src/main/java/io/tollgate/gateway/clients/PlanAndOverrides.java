package io.tollgate.gateway.clients;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Limits;
import io.tollgate.rules.domain.Rule;

/**
 * A plan and per-rule overrides, as a client or a tenant of the directory has them; each override is made into
 * the rule's {@link Effective} policy once per rule, not per request. Equal when plan and overrides are.
 */
final class PlanAndOverrides {

    static final PlanAndOverrides NONE = new PlanAndOverrides(null, Map.of());

    /** Kept for a rule this has no override of. */
    private static final Effective NO_OVERRIDE = new Effective(0, Duration.ZERO, 0, "none", null);
    /** Per holder, rules resolved: a handful in force at a time, more only across many rule-set versions. */
    private static final int MEMO = 64;

    private final String plan;
    private final Map<String, Limits> overrides;
    private final RuleMemo<Effective> resolved;

    PlanAndOverrides(String plan, Map<String, Limits> overrides) {
        this.plan = plan;
        this.overrides = overrides == null ? Map.of() : overrides;
        this.resolved = this.overrides.isEmpty() ? null : new RuleMemo<>(MEMO);
    }

    /** The plan named, or null. */
    String plan() {
        return plan;
    }

    Map<String, Limits> overrides() {
        return overrides;
    }

    /** The override of {@code rule} as its effective policy, or null when there is none. */
    Effective override(Rule rule) {
        if (resolved == null) {
            return null;
        }
        Effective known = resolved.get(rule);
        if (known == null) {
            Limits limits = overrides.get(rule.id());
            known = resolved.put(rule, limits == null ? NO_OVERRIDE : Effective.of(rule, limits, Effective.OVERRIDE));
        }
        return known == NO_OVERRIDE ? null : known;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PlanAndOverrides t && Objects.equals(plan, t.plan) && overrides.equals(t.overrides);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(plan) * 31 + overrides.hashCode();
    }
}
