package io.tollgate.rules.domain;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks on a rule's values, the same for the rules service and for a gateway loading rules. The
 * wire-level checks (types, unknown fields, enum names, period syntax) belong to {@link RuleCodec}, which
 * runs this validator too.
 */
public final class RuleValidator {

    /** The id pattern of DESIGN.md. */
    public static final Pattern ID = Pattern.compile("^[a-z0-9][a-z0-9._-]{0,62}$");
    /** The methods a rule may name (RFC 9110 plus PATCH). */
    public static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
            "TRACE", "CONNECT");
    static final int MAX_DESCRIPTION = 1_000;

    private RuleValidator() {
    }

    /** Every bad field of {@code rule}; empty when the rule is valid. */
    public static List<FieldError> validate(Rule rule) {
        List<FieldError> errors = new ArrayList<>();
        if (rule.id() == null) {
            errors.add(new FieldError("id", null, "is required"));
        } else if (!ID.matcher(rule.id()).matches()) {
            errors.add(new FieldError("id", rule.id(), "must match " + ID.pattern()));
        }
        if (rule.description() != null && rule.description().length() > MAX_DESCRIPTION) {
            errors.add(new FieldError("description", rule.description().substring(0, 40) + "…",
                    "must be at most " + MAX_DESCRIPTION + " characters"));
        }
        List<String> methods = rule.match().methods();
        for (int i = 0; i < methods.size(); i++) {
            if (!METHODS.contains(methods.get(i))) {
                errors.add(new FieldError("match.methods[" + i + "]", methods.get(i),
                        "is not an HTTP method (one of " + String.join(", ", sorted(METHODS)) + ")"));
            }
        }
        PathPattern.problem(rule.match().path())
                .ifPresent(p -> errors.add(new FieldError("match.path", rule.match().path(), p)));
        if (rule.key() == null) {
            errors.add(new FieldError("key", null, "is required (api_key, ip, global or header:<Name>)"));
        }
        if (rule.limit() < 1) {
            errors.add(new FieldError("limit", Long.toString(rule.limit()), "must be at least 1"));
        }
        checkPeriod(rule.period(), errors);
        if (rule.burst() < 1) {
            errors.add(new FieldError("burst", Long.toString(rule.burst()), "must be at least 1"));
        }
        return errors;
    }

    /**
     * Throws when {@code rule} is not valid.
     *
     * @throws RuleValidationException
     * listing every bad field
     */
    public static Rule requireValid(Rule rule) {
        List<FieldError> errors = validate(rule);
        if (!errors.isEmpty()) {
            throw new RuleValidationException(errors);
        }
        return rule;
    }

    private static void checkPeriod(Duration period, List<FieldError> errors) {
        if (period == null) {
            errors.add(new FieldError("period", null, "is required (e.g. 1s, 10s, 1m, 1h, 1d or PT30S)"));
        } else if (period.toMillis() < 1) {
            errors.add(new FieldError("period", period.toString(), "must be at least 1 millisecond"));
        }
    }

    private static List<String> sorted(Set<String> values) {
        return values.stream().sorted().toList();
    }
}
