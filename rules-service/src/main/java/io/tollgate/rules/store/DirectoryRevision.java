package io.tollgate.rules.store;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One committed change of one tenant or client.
 *
 * @param seq
 * the directory seq the change committed as
 * @param operation
 * what was done
 * @param actor
 * the name of the token that did it
 * @param at
 * when
 * @param entry
 * the entry after the change; for a delete, the entry as it was
 */
@JsonPropertyOrder({"seq", "operation", "actor", "at", "entry"})
public record DirectoryRevision<T>(long seq, Operation operation, String actor, Instant at, T entry) {
}
