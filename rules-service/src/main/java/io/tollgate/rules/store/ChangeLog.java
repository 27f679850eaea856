package io.tollgate.rules.store;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The steps every write takes inside its transaction: lock the version, raise it by one, apply and record
 * each change, announce the new version. Because the version row is locked first, concurrent writers queue
 * and commit in version order, and a rolled-back write leaves the version where it was.
 */
@ApplicationScoped
class ChangeLog {

    private final RuleCodec codec;
    private final String channel;

    ChangeLog(RuleCodec codec, RulesConfig config) {
        this.codec = codec;
        this.channel = config.watch().channel();
    }

    /** Locks the version row until the transaction ends, and reads it. */
    Uni<Long> lockVersion(SqlConnection conn) {
        return conn.query("SELECT version FROM rules_version FOR UPDATE")
                .execute()
                .map(rows -> rows.iterator().next().getLong("version"));
    }

    /** Raises the version by exactly one; call once per transaction, after {@link #lockVersion}. */
    Uni<Long> nextVersion(SqlConnection conn) {
        return conn.query("UPDATE rules_version SET version = version + 1 RETURNING version")
                .execute()
                .map(rows -> rows.iterator().next().getLong("version"));
    }

    /** Applies one change to the current rules and records it as a revision at {@code version}. */
    Uni<Void> apply(SqlConnection conn, long version, Operation operation, Rule rule, String actor) {
        String body = codec.write(rule);
        Uni<?> current = operation == Operation.DELETE
                ? conn.preparedQuery("DELETE FROM rules WHERE id = $1").execute(Tuple.of(rule.id()))
                : conn.preparedQuery("""
                        INSERT INTO rules (id, body, version, updated_at, updated_by)
                        VALUES ($1, $2::text::jsonb, $3, now(), $4)
                        ON CONFLICT (id) DO UPDATE
                        SET body = EXCLUDED.body, version = EXCLUDED.version,
                            updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by""")
                        .execute(Tuple.of(rule.id(), body, version, actor));
        return current
                .chain(() -> conn.preparedQuery("""
                        INSERT INTO rule_revisions (version, rule_id, operation, actor, at, body)
                        VALUES ($1, $2, $3, $4, now(), $5::text::jsonb)""")
                        .execute(Tuple.of(version, rule.id(), operation.wireName(), actor, body)))
                .replaceWithVoid();
    }

    /** Tells every instance's watchers about {@code version}; PostgreSQL delivers it on commit only. */
    Uni<Void> announce(SqlConnection conn, long version) {
        return conn.preparedQuery("SELECT pg_notify($1, $2)")
                .execute(Tuple.of(channel, Long.toString(version)))
                .replaceWithVoid();
    }
}
