package io.tollgate.gateway.clients;

import java.util.HashMap;
import java.util.Map;

import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;

/** A rule's own effective policy and the one of each plan it names, worked out once per rule. */
final class RulePolicies {

    private final Effective own;
    private final Map<String, Effective> byPlan;

    RulePolicies(Rule rule) {
        this.own = Effective.of(rule);
        this.byPlan = new HashMap<>();
        rule.plans().keySet().forEach(plan -> byPlan.put(plan, Effective.resolve(rule, plan, null)));
    }

    Effective own() {
        return own;
    }

    /** The policy of {@code plan}; the rule's own when the plan is null or one the rule does not name. */
    Effective forPlan(String plan) {
        if (plan == null || byPlan.isEmpty()) {
            return own;
        }
        return byPlan.getOrDefault(plan, own);
    }
}
