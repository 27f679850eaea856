package io.tollgate.rules.domain;

import java.util.List;
import java.util.stream.Collectors;

/** A rule, or a rule set, that cannot be accepted; {@link #errors()} lists every bad field. */
public class RuleValidationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<FieldError> errors;

    public RuleValidationException(List<FieldError> errors) {
        super(summary(errors));
        this.errors = List.copyOf(errors);
    }

    /** Every bad field, in the order found. */
    public List<FieldError> errors() {
        return errors;
    }

    private static String summary(List<FieldError> errors) {
        return errors.stream()
                .map(e -> e.field() + ": " + e.reason())
                .collect(Collectors.joining("; ", "invalid rule: ", ""));
    }
}
