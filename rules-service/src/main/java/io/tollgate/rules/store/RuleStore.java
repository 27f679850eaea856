package io.tollgate.rules.store;

import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleSet;
import io.tollgate.rules.store.WriteRejectedException.Reason;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/** The rules in PostgreSQL, through the reactive client: reads, and single-rule writes. */
@ApplicationScoped
public class RuleStore {

    private final Pool pool;
    private final Rows values;
    private final ChangeLog log;

    RuleStore(Pool pool, RuleCodec codec, ChangeLog log) {
        this.pool = pool;
        this.values = new Rows(codec);
        this.log = log;
    }

    /** The current global version. */
    public Uni<Long> version() {
        return pool.query("SELECT version FROM rules_version")
                .execute()
                .map(rows -> rows.iterator().next().getLong("version"));
    }

    /** Every rule with the version they are at, read in one statement so both belong together. */
    public Uni<RuleSet> all() {
        return all(pool);
    }

    /** Every rule with their version, read through {@code client} (a transaction's connection, or the pool). */
    Uni<RuleSet> all(SqlClient client) {
        return client.query("""
                SELECT v.version AS set_version, r.body::text AS body
                FROM rules_version v LEFT JOIN rules r ON true
                ORDER BY r.id""")
                .execute()
                .map(values::toRuleSet);
    }

    /** One rule, if it exists. */
    public Uni<Optional<StoredRule>> find(String id) {
        return pool.preparedQuery("SELECT body::text AS body, version FROM rules WHERE id = $1")
                .execute(Tuple.of(id))
                .map(rows -> rows.size() == 0 ? Optional.empty() : Optional.of(values.toStored(rows.iterator().next())));
    }

    /** Creates a rule; rejected with {@link Reason#CONFLICT} when the id exists. */
    public Uni<StoredRule> create(Rule rule, String actor) {
        return pool.withTransaction(conn -> log.lockVersion(conn)
                .chain(() -> currentVersionOf(conn, rule.id()))
                .chain(existing -> {
                    if (existing != null) {
                        throw new WriteRejectedException(Reason.CONFLICT, "rule " + rule.id() + " already exists");
                    }
                    return commit(conn, Operation.CREATE, rule, actor);
                }));
    }

    /**
     * Creates or replaces a rule. Replacing it with an equal rule is no change: the version stays.
     *
     * @param ifMatch
     * {@code null}, or the precondition of an {@code If-Match} header
     */
    public Uni<PutOutcome> put(Rule rule, String actor, IfMatch ifMatch) {
        return pool.withTransaction(conn -> log.lockVersion(conn)
                .chain(() -> find(conn, rule.id()))
                .chain(existing -> {
                    Long current = existing == null ? null : existing.version();
                    if (ifMatch != null && !ifMatch.holds(current)) {
                        throw new WriteRejectedException(Reason.PRECONDITION_FAILED,
                                "rule " + rule.id() + " is at " + (current == null ? "no version" : current));
                    }
                    if (existing != null && existing.rule().equals(rule)) {
                        return Uni.createFrom().item(new PutOutcome(existing, false));
                    }
                    Operation op = existing == null ? Operation.CREATE : Operation.REPLACE;
                    return commit(conn, op, rule, actor).map(stored -> new PutOutcome(stored, existing == null));
                }));
    }

    /** Deletes a rule; rejected with {@link Reason#NOT_FOUND} when it does not exist. */
    public Uni<Long> delete(String id, String actor, IfMatch ifMatch) {
        return pool.withTransaction(conn -> log.lockVersion(conn)
                .chain(() -> find(conn, id))
                .chain(existing -> {
                    if (existing == null) {
                        throw new WriteRejectedException(Reason.NOT_FOUND, "no rule " + id);
                    }
                    if (ifMatch != null && !ifMatch.holds(existing.version())) {
                        throw new WriteRejectedException(Reason.PRECONDITION_FAILED,
                                "rule " + id + " is at " + existing.version());
                    }
                    return commit(conn, Operation.DELETE, existing.rule(), actor).map(StoredRule::version);
                }));
    }

    /** Every revision of one rule, oldest first; empty when the id never existed. */
    public Uni<List<Revision>> history(String id) {
        return pool.preparedQuery("""
                SELECT version, rule_id, operation, actor, at, body::text AS body
                FROM rule_revisions WHERE rule_id = $1 ORDER BY version""")
                .execute(Tuple.of(id))
                .map(values::toRevisions);
    }

    /**
     * The revisions of the versions after {@code version}, oldest first, for at most {@code maxVersions}
     * versions; bounded by version, not by row, so the revisions of one version are never split.
     */
    public Uni<List<Revision>> since(long version, int maxVersions) {
        return pool.preparedQuery("""
                SELECT version, rule_id, operation, actor, at, body::text AS body
                FROM rule_revisions WHERE version > $1 AND version <= $1 + $2 ORDER BY version, rule_id""")
                .execute(Tuple.of(version, maxVersions))
                .map(values::toRevisions);
    }

    private Uni<StoredRule> commit(SqlConnection conn, Operation op, Rule rule, String actor) {
        return log.nextVersion(conn)
                .call(version -> log.apply(conn, version, op, rule, actor))
                .call(version -> log.announce(conn, version))
                .map(version -> new StoredRule(rule, version));
    }

    private Uni<Long> currentVersionOf(SqlConnection conn, String id) {
        return find(conn, id).map(stored -> stored == null ? null : stored.version());
    }

    private Uni<StoredRule> find(SqlConnection conn, String id) {
        return conn.preparedQuery("SELECT body::text AS body, version FROM rules WHERE id = $1")
                .execute(Tuple.of(id))
                .map(rows -> rows.size() == 0 ? null : values.toStored(rows.iterator().next()));
    }
}
