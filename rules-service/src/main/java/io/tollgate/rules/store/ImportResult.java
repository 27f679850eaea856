package io.tollgate.rules.store;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What a declarative import did, or would do.
 *
 * @param version
 * the version after the import (unchanged when nothing changed)
 * @param dryRun
 * true when nothing was written
 * @param created
 * ids of rules created
 * @param changed
 * ids of rules replaced
 * @param deleted
 * ids of rules deleted
 * @param unchanged
 * ids of rules left as they were
 */
@JsonPropertyOrder({"version", "dry_run", "created", "changed", "deleted", "unchanged"})
public record ImportResult(long version, @JsonProperty("dry_run") boolean dryRun, List<String> created,
        List<String> changed, List<String> deleted, List<String> unchanged) {

    /** Whether the import changes anything. */
    public boolean changesAnything() {
        return !created.isEmpty() || !changed.isEmpty() || !deleted.isEmpty();
    }
}
