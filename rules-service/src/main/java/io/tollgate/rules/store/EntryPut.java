package io.tollgate.rules.store;

/**
 * What a PUT of one directory entry did.
 *
 * @param stored
 * the entry as now stored, with its seq
 * @param created
 * true when there was no entry before (never, or deleted)
 */
public record EntryPut<T>(StoredEntry<T> stored, boolean created) {
}
