package io.tollgate.rules.store;

/** A write that was rolled back, leaving the rules and the version as they were. */
public class WriteRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the write was refused. */
    public enum Reason {
        /** The rule does not exist. */
        NOT_FOUND,
        /** A rule with that id already exists. */
        CONFLICT,
        /** An {@code If-Match} precondition did not hold. */
        PRECONDITION_FAILED
    }

    private final Reason reason;

    public WriteRejectedException(Reason reason, String detail) {
        super(detail);
        this.reason = reason;
    }

    /** {@code items}, or a {@link Reason#NOT_FOUND} naming {@code what} when there are none (a history). */
    public static <L extends java.util.List<?>> L found(L items, String what) {
        if (items.isEmpty()) {
            throw new WriteRejectedException(Reason.NOT_FOUND, "no " + what);
        }
        return items;
    }

    public Reason reason() {
        return reason;
    }
}
