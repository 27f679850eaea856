package io.tollgate.rules.store;

/**
 * A directory entry as stored.
 *
 * @param name
 * the tenant's id, or the client's digest
 * @param entry
 * the entry ({@code ClientEntry} or {@code TenantEntry})
 * @param seq
 * the directory change that last touched it; its ETag
 */
public record StoredEntry<T>(String name, T entry, long seq) {
}
