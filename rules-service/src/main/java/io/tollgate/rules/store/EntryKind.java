package io.tollgate.rules.store;

import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.TenantEntry;

/**
 * How one kind of directory entry is stored: its table, the column that names it, its name in the revisions,
 * and how its body reads back. Both tables have the same shape ({@code <key>, body, seq, updated_at,
 * updated_by}; body null: deleted), so every statement is written once.
 */
final class EntryKind<T> {

    static final EntryKind<TenantEntry> TENANT = new EntryKind<>("tenant", "tenants", "id",
            DirectoryCodec::parseTenant);
    static final EntryKind<ClientEntry> CLIENT = new EntryKind<>("client", "clients", "digest",
            DirectoryCodec::parseClient);

    /** The kind's name in {@code directory_revisions}. */
    final String wire;
    final String table;
    final String key;
    private final BiFunction<DirectoryCodec, byte[], T> parse;

    private EntryKind(String wire, String table, String key, BiFunction<DirectoryCodec, byte[], T> parse) {
        this.wire = wire;
        this.table = table;
        this.key = key;
        this.parse = parse;
    }

    /** A stored body back to its entry, through the same codec as every entry the API accepts. */
    T read(DirectoryCodec codec, String body) {
        return parse.apply(codec, body.getBytes(StandardCharsets.UTF_8));
    }

    /** The live entry named {@code $1}: its body and seq. */
    String selectLive() {
        return "SELECT body::text AS body, seq FROM " + table + " WHERE " + key + " = $1 AND body IS NOT NULL";
    }

    /** Creates or replaces the entry named {@code $1}: body {@code $2}, seq {@code $3}, actor {@code $4}. */
    String upsert() {
        return "INSERT INTO " + table + " (" + key + ", body, seq, updated_at, updated_by)"
                + " VALUES ($1, $2::text::jsonb, $3, now(), $4)"
                + " ON CONFLICT (" + key + ") DO UPDATE SET body = EXCLUDED.body, seq = EXCLUDED.seq,"
                + " updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by";
    }

    /** Leaves the entry named {@code $1} as a tombstone at seq {@code $2}, by actor {@code $3}. */
    String tombstone() {
        return "UPDATE " + table + " SET body = NULL, seq = $2, updated_at = now(), updated_by = $3 WHERE " + key
                + " = $1";
    }
}
