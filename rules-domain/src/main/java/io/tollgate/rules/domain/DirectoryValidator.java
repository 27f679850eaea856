package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks directory entries: on their own (the constraints declared on {@link ClientEntry}, {@link TenantEntry}
 * and {@link Limits}, with the rule validator's Hibernate Validator), and against the rules in force: a plan
 * must be one some rule names, an override must be of a rule that exists and counts by the entry's kind of key
 * (a client's of a rule keyed {@code api_key}, a tenant's of a rule keyed {@code tenant}). Whether a client's
 * tenant exists is the directory's own question, not this class's.
 */
public final class DirectoryValidator {

    private DirectoryValidator() {
    }

    /** Every bad field of {@code entry} on its own. */
    public static List<FieldError> validate(ClientEntry entry) {
        return Violations.toFieldErrors(RuleValidator.validator().validate(entry));
    }

    /** Every bad field of {@code entry} on its own. */
    public static List<FieldError> validate(TenantEntry entry) {
        return Violations.toFieldErrors(RuleValidator.validator().validate(entry));
    }

    /** Every field of a client's {@code entry} that does not fit {@code rules}. */
    public static List<FieldError> fit(ClientEntry entry, RuleSet rules) {
        return fit(entry.plan(), entry.overrides(), KeySpec.Kind.API_KEY, rules);
    }

    /** Every field of a tenant's {@code entry} that does not fit {@code rules}. */
    public static List<FieldError> fit(TenantEntry entry, RuleSet rules) {
        return fit(entry.plan(), entry.overrides(), KeySpec.Kind.TENANT, rules);
    }

    private static List<FieldError> fit(String plan, Map<String, Limits> overrides, KeySpec.Kind kind,
            RuleSet rules) {
        List<FieldError> errors = new ArrayList<>();
        if (plan != null && !plans(rules).contains(plan)) {
            errors.add(new FieldError("plan", plan, "is not a plan of any rule (rules name: "
                    + String.join(", ", plans(rules).stream().sorted().toList()) + ")"));
        }
        for (String ruleId : overrides.keySet()) {
            Rule rule = rules.rules().stream().filter(r -> r.id().equals(ruleId)).findFirst().orElse(null);
            if (rule == null) {
                errors.add(new FieldError("overrides." + ruleId, ruleId, "is not a rule"));
            } else if (rule.key().kind() != kind) {
                errors.add(new FieldError("overrides." + ruleId, ruleId, "counts by " + rule.key().wire()
                        + ": only " + (kind == KeySpec.Kind.API_KEY ? "rules keyed api_key" : "rules keyed tenant")
                        + " take " + (kind == KeySpec.Kind.API_KEY ? "a client's" : "a tenant's") + " override"));
            } else {
                Limits override = overrides.get(ruleId);
                boolean blocks = override.limit() != null && override.limit() == 0;
                long capacity = rule.capacity(override.limitOr(rule.limit()), override.burstOr(rule.burst()));
                if (!blocks && capacity < rule.cost()) {
                    errors.add(new FieldError("overrides." + ruleId, null, "holds at most " + capacity
                            + ", less than the rule's cost " + rule.cost() + ": a request could never pass"));
                }
            }
        }
        return errors;
    }

    /** Every plan name some rule of {@code rules} names. */
    public static Set<String> plans(RuleSet rules) {
        Set<String> names = new HashSet<>();
        rules.rules().forEach(r -> names.addAll(r.plans().keySet()));
        return names;
    }
}
