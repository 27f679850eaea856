package io.tollgate.rules.store;

import java.util.List;

/** A bulk import with bad lines; nothing was changed. */
public class ImportRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<LineError> errors;
    private final long errorCount;

    /**
     * @param errors
     * the errors named, at most {@link ClientImport#MAX_ERRORS_NAMED}, ordered by line
     * @param errorCount
     * how many errors there are in all
     */
    public ImportRejectedException(List<LineError> errors, long errorCount) {
        super(errorCount + " error(s)");
        this.errors = List.copyOf(errors);
        this.errorCount = errorCount;
    }

    public List<LineError> errors() {
        return errors;
    }

    public long errorCount() {
        return errorCount;
    }
}
