package io.tollgate.rules.store;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What a bulk import of clients did, or would do.
 *
 * @param dryRun
 * true when nothing was written
 * @param lines
 * the entries read (blank lines aside)
 * @param created
 * clients that did not exist
 * @param changed
 * clients whose entry changed
 * @param unchanged
 * clients whose entry was already the same (no new seq)
 * @param seq
 * the directory's seq after the import (as it was, for a dry run)
 */
@JsonPropertyOrder({"dry_run", "lines", "created", "changed", "unchanged", "seq"})
public record ClientImportResult(@JsonProperty("dry_run") boolean dryRun, long lines, long created, long changed,
        long unchanged, long seq) {
}
