package io.tollgate.rules.store;

import java.util.List;

import io.tollgate.rules.domain.ClientEntry;

/**
 * Some lines of a bulk import, read and checked on their own: the good ones by digest, and the errors of the bad
 * ones. The raw keys are gone by now.
 *
 * @param lines
 * the lines that read as entries
 * @param errors
 * every bad field of the other lines
 * @param end
 * true for the empty batch that follows the last line
 */
public record ImportBatch(List<Line> lines, List<LineError> errors, boolean end) {

    /** The batch that says there are no more lines. */
    public static final ImportBatch END = new ImportBatch(List.of(), List.of(), true);

    /**
     * One good line.
     *
     * @param number
     * its line number, from 1
     * @param digest
     * the digest of its key
     * @param entry
     * its entry
     */
    public record Line(long number, String digest, ClientEntry entry) {
    }
}
