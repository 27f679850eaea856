package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.DirectoryValidator;
import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.TenantEntry;
import io.tollgate.rules.store.WriteRejectedException.Reason;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * Tenants and clients one at a time, through the reactive client: read, put, delete, history. A put is checked
 * against what is stored, in its transaction: a client's tenant must exist, a plan must be one some rule in force
 * names, an override must be of a rule of the entry's key kind ({@link DirectoryValidator#fit}); a tenant that
 * still has clients is not deleted.
 */
@ApplicationScoped
public class DirectoryStore {

    private final Pool pool;
    private final DirectoryCodec codec;
    private final DirectoryLog log;
    private final RuleStore rules;

    DirectoryStore(Pool pool, DirectoryCodec codec, DirectoryLog log, RuleStore rules) {
        this.pool = pool;
        this.codec = codec;
        this.log = log;
        this.rules = rules;
    }

    public Uni<Optional<StoredEntry<ClientEntry>>> client(String digest) {
        return find(pool, EntryKind.CLIENT, digest).map(Optional::ofNullable);
    }

    public Uni<Optional<StoredEntry<TenantEntry>>> tenant(String id) {
        return find(pool, EntryKind.TENANT, id).map(Optional::ofNullable);
    }

    public Uni<EntryPut<ClientEntry>> putClient(String digest, ClientEntry entry, String actor, IfMatch ifMatch) {
        return put(EntryKind.CLIENT, digest, entry, actor, ifMatch, conn -> rules.all(conn)
                .map(set -> DirectoryValidator.fit(entry, set))
                .chain(errors -> entry.tenant() == null
                        ? Uni.createFrom().item(errors)
                        : find(conn, EntryKind.TENANT, entry.tenant()).map(tenant -> tenant != null
                                ? errors
                                : with(errors, new FieldError("tenant", entry.tenant(), "is not a tenant")))));
    }

    public Uni<EntryPut<TenantEntry>> putTenant(String id, TenantEntry entry, String actor, IfMatch ifMatch) {
        return put(EntryKind.TENANT, id, entry, actor, ifMatch,
                conn -> rules.all(conn).map(set -> DirectoryValidator.fit(entry, set)));
    }

    /** Deletes a client; answers the seq of the delete. */
    public Uni<Long> deleteClient(String digest, String actor, IfMatch ifMatch) {
        return delete(EntryKind.CLIENT, digest, actor, ifMatch, conn -> Uni.createFrom().voidItem());
    }

    /** Deletes a tenant that has no clients left ({@link Reason#CONFLICT} otherwise). */
    public Uni<Long> deleteTenant(String id, String actor, IfMatch ifMatch) {
        return delete(EntryKind.TENANT, id, actor, ifMatch, conn -> conn
                .preparedQuery("SELECT EXISTS (SELECT 1 FROM clients WHERE tenant = $1 AND body IS NOT NULL) AS used")
                .execute(Tuple.of(id))
                .invoke(rows -> {
                    if (rows.iterator().next().getBoolean("used")) {
                        throw new WriteRejectedException(Reason.CONFLICT,
                                "tenant " + id + " still has clients: delete them or move them to another tenant first");
                    }
                })
                .replaceWithVoid());
    }

    /** Every revision of a client, oldest first; empty when it never existed. */
    public Uni<List<DirectoryRevision<ClientEntry>>> clientHistory(String digest) {
        return history(EntryKind.CLIENT, digest);
    }

    /** Every revision of a tenant, oldest first; empty when it never existed. */
    public Uni<List<DirectoryRevision<TenantEntry>>> tenantHistory(String id) {
        return history(EntryKind.TENANT, id);
    }

    private <T> Uni<EntryPut<T>> put(EntryKind<T> kind, String name, T entry, String actor, IfMatch ifMatch,
            Function<SqlConnection, Uni<List<FieldError>>> check) {
        return pool.withTransaction(conn -> log.lock(conn)
                .chain(() -> find(conn, kind, name))
                .chain(existing -> {
                    requireMatch(kind, name, existing, ifMatch);
                    if (existing != null && existing.entry().equals(entry)) {
                        return Uni.createFrom().item(new EntryPut<>(existing, false));
                    }
                    Operation op = existing == null ? Operation.CREATE : Operation.REPLACE;
                    return check.apply(conn)
                            .invoke(errors -> {
                                if (!errors.isEmpty()) {
                                    throw new EntryRejectedException(errors);
                                }
                            })
                            .chain(() -> commit(conn, kind, name, op, entry, actor))
                            .map(stored -> new EntryPut<>(stored, existing == null));
                }));
    }

    private <T> Uni<StoredEntry<T>> commit(SqlConnection conn, EntryKind<T> kind, String name, Operation op, T entry,
            String actor) {
        String body = codec.write(entry);
        return log.advance(conn, 1)
                .call(seq -> conn.preparedQuery(kind.upsert()).execute(Tuple.of(name, body, seq, actor)))
                .call(seq -> log.record(conn, seq, kind, name, op, actor, body))
                .call(seq -> log.announce(conn, seq))
                .map(seq -> new StoredEntry<>(name, entry, seq));
    }

    private <T> Uni<Long> delete(EntryKind<T> kind, String name, String actor, IfMatch ifMatch,
            Function<SqlConnection, Uni<Void>> check) {
        return pool.withTransaction(conn -> log.lock(conn)
                .chain(() -> find(conn, kind, name))
                .chain(existing -> {
                    if (existing == null) {
                        throw new WriteRejectedException(Reason.NOT_FOUND, "no " + kind.wire + " " + name);
                    }
                    requireMatch(kind, name, existing, ifMatch);
                    String body = codec.write(existing.entry());
                    return check.apply(conn)
                            .chain(() -> log.advance(conn, 1))
                            .call(seq -> conn.preparedQuery(kind.tombstone()).execute(Tuple.of(name, seq, actor)))
                            .call(seq -> log.record(conn, seq, kind, name, Operation.DELETE, actor, body))
                            .call(seq -> log.announce(conn, seq));
                }));
    }

    private static void requireMatch(EntryKind<?> kind, String name, StoredEntry<?> existing, IfMatch ifMatch) {
        Long current = existing == null ? null : existing.seq();
        if (ifMatch != null && !ifMatch.holds(current)) {
            throw new WriteRejectedException(Reason.PRECONDITION_FAILED,
                    kind.wire + " " + name + " is at " + (current == null ? "no seq (it does not exist)" : current));
        }
    }

    private <T> Uni<StoredEntry<T>> find(SqlClient client, EntryKind<T> kind, String name) {
        return client.preparedQuery(kind.selectLive())
                .execute(Tuple.of(name))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    Row row = rows.iterator().next();
                    return new StoredEntry<>(name, kind.read(codec, row.getString("body")), row.getLong("seq"));
                });
    }

    private <T> Uni<List<DirectoryRevision<T>>> history(EntryKind<T> kind, String name) {
        return pool.preparedQuery("""
                SELECT seq, operation, actor, at, body::text AS body
                FROM directory_revisions WHERE kind = $1 AND name = $2 ORDER BY seq""")
                .execute(Tuple.of(kind.wire, name))
                .map(rows -> {
                    List<DirectoryRevision<T>> out = new ArrayList<>();
                    for (Row row : rows) {
                        out.add(new DirectoryRevision<>(row.getLong("seq"),
                                Operation.fromWireName(row.getString("operation")), row.getString("actor"),
                                row.getOffsetDateTime("at").toInstant(), kind.read(codec, row.getString("body"))));
                    }
                    return out;
                });
    }

    private static List<FieldError> with(List<FieldError> errors, FieldError more) {
        List<FieldError> all = new ArrayList<>(errors);
        all.add(more);
        return all;
    }
}
