package io.tollgate.rules.store;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The steps every directory write takes inside its transaction, as {@link ChangeLog} for rules: lock the
 * directory's seq, take the next seq for each change, record each change as a revision, announce the last seq.
 * Because the seq row is locked first, directory writers queue and commit in seq order.
 */
@ApplicationScoped
class DirectoryLog {

    /** The prefix of a directory change's NOTIFY payload; a rules version is a bare number. */
    static final String NOTIFY_PREFIX = "directory:";

    private final String channel;

    DirectoryLog(RulesConfig config) {
        this.channel = config.watch().channel();
    }

    /** The seq of the last committed directory change. */
    static Uni<Long> current(SqlClient client) {
        return client.query("SELECT seq FROM directory_seq")
                .execute()
                .map(rows -> rows.iterator().next().getLong("seq"));
    }

    /** Locks the seq row until the transaction ends, and reads it. */
    Uni<Long> lock(SqlConnection conn) {
        return conn.query("SELECT seq FROM directory_seq FOR UPDATE")
                .execute()
                .map(rows -> rows.iterator().next().getLong("seq"));
    }

    /** Takes {@code count} seqs after the current one; answers the last. Call after {@link #lock}. */
    Uni<Long> advance(SqlConnection conn, long count) {
        return conn.preparedQuery("UPDATE directory_seq SET seq = seq + $1 RETURNING seq")
                .execute(Tuple.of(count))
                .map(rows -> rows.iterator().next().getLong("seq"));
    }

    /** Records one change of one entry at {@code seq}; {@code body} is the entry after it (as it was, for a delete). */
    Uni<Void> record(SqlConnection conn, long seq, EntryKind<?> kind, String name, Operation operation, String actor,
            String body) {
        return conn.preparedQuery("""
                INSERT INTO directory_revisions (seq, kind, name, operation, actor, at, body)
                VALUES ($1, $2, $3, $4, $5, now(), $6::text::jsonb)""")
                .execute(Tuple.tuple().addLong(seq).addString(kind.wire).addString(name)
                        .addString(operation.wireName()).addString(actor).addString(body))
                .replaceWithVoid();
    }

    /** Tells every instance's watchers that the directory is at {@code seq}; delivered on commit only. */
    Uni<Void> announce(SqlConnection conn, long seq) {
        return conn.preparedQuery("SELECT pg_notify($1, $2)")
                .execute(Tuple.of(channel, NOTIFY_PREFIX + seq))
                .replaceWithVoid();
    }
}
