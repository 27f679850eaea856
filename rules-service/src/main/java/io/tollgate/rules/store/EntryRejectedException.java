package io.tollgate.rules.store;

import java.util.List;

import io.tollgate.rules.domain.FieldError;

/**
 * A directory entry that cannot be accepted: not valid on its own (the codec's errors), or not fitting what is
 * stored (a tenant that does not exist, a plan no rule names, an override of a rule that is not there). Nothing
 * was changed.
 */
public class EntryRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<FieldError> errors;

    public EntryRejectedException(List<FieldError> errors) {
        super(errors.size() + " field(s) rejected");
        this.errors = List.copyOf(errors);
    }

    /** Every bad field. */
    public List<FieldError> errors() {
        return errors;
    }
}
