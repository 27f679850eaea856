package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import jakarta.validation.Validation;
import jakarta.validation.Validator;

import org.hibernate.validator.HibernateValidator;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;

import io.tollgate.counter.Algorithm;

/**
 * THE rule validator, the same for the rules service and for a gateway loading rules: Hibernate Validator
 * checks the constraints declared on {@link Rule}, {@link RuleMatch} and {@link RuleSet} (standard ones
 * such as {@code @Pattern} and {@code @Min}, and this module's {@link PathGlob}, {@link HttpMethod},
 * {@link PositivePeriod} and {@link UniqueIds}), and every violation becomes a {@link FieldError}. The
 * wire-level checks (types, unknown fields, enum names, key and period syntax) belong to
 * {@link RuleCodec}, which runs this validator on what it reads.
 */
public final class RuleValidator {

    /** The id pattern, as text for {@code @Pattern}. */
    public static final String ID_REGEX = Constraints.ID_REGEX;
    /** The id pattern: 1 to 63 of {@code a-z 0-9 . _ -}, starting with a letter or digit. */
    public static final Pattern ID = Pattern.compile(ID_REGEX);
    /** The methods a rule may name (RFC 9110 plus PATCH). */
    public static final Set<String> METHODS = Constraints.METHODS;

    private RuleValidator() {
    }

    /** Every bad field of {@code rule}, in the rule's field order; empty when the rule is valid. */
    public static List<FieldError> validate(Rule rule) {
        List<FieldError> errors = new ArrayList<>(Violations.toFieldErrors(Holder.VALIDATOR.validate(rule)));
        errors.addAll(affordable(rule));
        errors.addAll(calendar(rule));
        errors.addAll(charged(rule));
        errors.addAll(inFlight(rule));
        return errors;
    }

    /**
     * A calendar needs a {@code fixed_window} of {@code 1d}, {@code P1W} or {@code P1M} in a zone that exists, and
     * no {@code local} failure mode (a window of the calendar has no share to give each gateway); a month
     * needs a calendar.
     */
    static List<FieldError> calendar(Rule rule) {
        List<FieldError> errors = new ArrayList<>();
        if (rule.calendar() == null) {
            if (Periods.MONTH.equals(rule.period())) {
                errors.add(new FieldError("period", "P1M", "a month is a calendar period: set calendar (e.g. UTC)"));
            }
            return errors;
        }
        if (CalendarWindow.zone(rule.calendar()).isEmpty()) {
            errors.add(new FieldError("calendar", rule.calendar(), "must be UTC or an IANA time zone, such as"
                    + " Europe/Berlin"));
        }
        if (rule.algorithm() != Algorithm.FIXED_WINDOW) {
            errors.add(new FieldError("algorithm", rule.algorithm().wireName(), "must be fixed_window with calendar"));
        }
        if (rule.period() != null && CalendarWindow.length(rule.period()).isEmpty()) {
            errors.add(new FieldError("period", Periods.format(rule.period()),
                    "must be 1d, P1W or P1M with calendar"));
        }
        if (rule.failureMode() == FailureMode.LOCAL) {
            errors.add(new FieldError("failure_mode", "local", "must be open or closed with calendar: a calendar"
                    + " window has no share to give each gateway"));
        }
        rule.plans().forEach((plan, limits) -> {
            if (limits != null && limits.period() != null) {
                errors.add(new FieldError("plans." + plan + ".period", Periods.format(limits.period()),
                        "must be left out with calendar: the calendar sets the window"));
            }
        });
        return errors;
    }

    /**
     * {@code slot_ttl} belongs to {@code concurrency}: how long a slot lasts; the other algorithms take
     * {@code auto} or {@code off} in {@code lease} (token leases), and {@code concurrency} takes neither. A
     * {@code concurrency} rule counts requests (each takes one slot, spends no cost and settles nothing) and has no
     * share to give each gateway (no {@code local} failure mode).
     */
    static List<FieldError> inFlight(Rule rule) {
        List<FieldError> errors = new ArrayList<>();
        if (rule.algorithm() != Algorithm.CONCURRENCY) {
            if (rule.slotTtl() != null) {
                errors.add(new FieldError("slot_ttl", Periods.format(rule.slotTtl()), "applies to concurrency only: it"
                        + " is how long a slot lasts"));
            }
            return errors;
        }
        if (rule.leasing() != Leasing.AUTO) {
            errors.add(new FieldError("lease", rule.leasing().wireName(), "must be left out with concurrency: a"
                    + " concurrency rule leases no tokens (its slot's duration is slot_ttl)"));
        }
        if (rule.cost() != 1) {
            errors.add(new FieldError("cost", Long.toString(rule.cost()), "must be 1 with concurrency: a request in"
                    + " flight takes one slot"));
        }
        if (rule.settle() != null) {
            errors.add(new FieldError("settle", rule.settle().from(), "does not apply to concurrency: a slot is"
                    + " given back when the answer ends"));
        }
        if (rule.unit() != Unit.REQUESTS) {
            errors.add(new FieldError("unit", rule.unit().wireName(), "must be requests with concurrency"));
        }
        if (rule.failureMode() == FailureMode.LOCAL) {
            errors.add(new FieldError("failure_mode", "local", "must be open or closed with concurrency: requests in"
                    + " flight have no share to give each gateway"));
        }
        return errors;
    }

    /** A {@code settle} must name where the usage is read, and charge a whole number when it never comes. */
    static List<FieldError> charged(Rule rule) {
        if (rule.settle() == null) {
            return List.of();
        }
        List<FieldError> errors = new ArrayList<>(1);
        Settle.problem(rule.settle().from())
                .ifPresent(why -> errors.add(new FieldError("settle.from", rule.settle().from(), why)));
        Long otherwise = rule.settle().otherwise();
        Settle.problem(otherwise)
                .ifPresent(why -> errors.add(new FieldError("settle.otherwise", String.valueOf(otherwise), why)));
        return errors;
    }

    /**
     * A cost no bucket of the rule could ever hold (above its burst, or above its limit for a window), the
     * rule's own or a plan's: such a request could never pass.
     */
    static List<FieldError> affordable(Rule rule) {
        if (rule.cost() <= 1 || rule.cost() > Rule.MAX_COST || rule.period() == null) {
            return List.of();
        }
        List<FieldError> errors = new ArrayList<>();
        long own = rule.capacity(rule.limit(), rule.burst());
        if (rule.limit() >= 1 && rule.burst() >= 1 && rule.cost() > own) {
            errors.add(new FieldError("cost", Long.toString(rule.cost()),
                    "must be at most what a bucket holds (" + own + "): a request could never pass"));
        }
        rule.plans().forEach((plan, limits) -> {
            if (limits == null || (limits.limit() != null && limits.limit() == 0)) {
                return;
            }
            long capacity = rule.capacity(limits.limitOr(rule.limit()), limits.burstOr(rule.burst()));
            if (capacity >= 1 && rule.cost() > capacity) {
                errors.add(new FieldError("plans." + plan, null, "holds at most " + capacity
                        + ", less than the rule's cost " + rule.cost() + ": a request could never pass"));
            }
        });
        return errors;
    }

    /** Every bad field of {@code set}, its rules' fields under {@code rules[i]}; empty when it is valid. */
    public static List<FieldError> validate(RuleSet set) {
        List<FieldError> errors = new ArrayList<>(Violations.toFieldErrors(Holder.VALIDATOR.validate(set)));
        for (int i = 0; i < set.rules().size(); i++) {
            Rule rule = set.rules().get(i);
            if (rule != null) {
                for (FieldError error : affordable(rule)) {
                    errors.add(error.under("rules[" + i + "]"));
                }
                for (FieldError error : calendar(rule)) {
                    errors.add(error.under("rules[" + i + "]"));
                }
                for (FieldError error : charged(rule)) {
                    errors.add(error.under("rules[" + i + "]"));
                }
                for (FieldError error : inFlight(rule)) {
                    errors.add(error.under("rules[" + i + "]"));
                }
            }
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
        throwIfAny(validate(rule));
        return rule;
    }

    /**
     * Throws when {@code set} is not valid.
     *
     * @throws RuleValidationException
     * listing every bad field
     */
    public static RuleSet requireValid(RuleSet set) {
        throwIfAny(validate(set));
        return set;
    }

    private static void throwIfAny(List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw new RuleValidationException(errors);
        }
    }

    /** The validator of every module type; built on first use. */
    static Validator validator() {
        return Holder.VALIDATOR;
    }

    /** Built on first use: bootstrapping Hibernate Validator costs class loading a process may not need. */
    private static final class Holder {

        // The provider is named and handed over directly, so no service lookup depends on the caller's
        // class loader (a Quarkus app's differs from a plain jar's). ParameterMessageInterpolator resolves
        // {value}-style parameters without Jakarta EL, which this module does not ship.
        static final Validator VALIDATOR = Validation.byProvider(HibernateValidator.class)
                .providerResolver(() -> List.of(new HibernateValidator()))
                .configure()
                .ignoreXmlConfiguration()
                .messageInterpolator(new ParameterMessageInterpolator())
                .buildValidatorFactory()
                .getValidator();
    }
}
