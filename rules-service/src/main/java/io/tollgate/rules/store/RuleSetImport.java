package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.store.WriteRejectedException.Reason;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * The declarative import: the given rules become THE rule set, in one transaction and one version
 * (GitOps-style apply). Rules not in the set are deleted; equal rules are left alone.
 */
@ApplicationScoped
public class RuleSetImport {

    private final Pool pool;
    private final RuleCodec codec;
    private final ChangeLog log;

    RuleSetImport(Pool pool, RuleCodec codec, ChangeLog log) {
        this.pool = pool;
        this.codec = codec;
        this.log = log;
    }

    /**
     * Replaces the rule set, or with {@code dryRun} only says what that would do.
     *
     * @param ifMatch
     * {@code null}, or a precondition on the current global version
     */
    public Uni<ImportResult> apply(List<Rule> wanted, String actor, boolean dryRun, IfMatch ifMatch) {
        return pool.withTransaction(conn -> log.lockVersion(conn)
                .chain(version -> {
                    if (ifMatch != null && !ifMatch.holds(version)) {
                        throw new WriteRejectedException(Reason.PRECONDITION_FAILED, "the rule set is at " + version);
                    }
                    return current(conn).chain(existing -> {
                        Plan plan = Plan.of(existing, wanted);
                        if (dryRun || !plan.changesAnything()) {
                            long after = plan.changesAnything() ? version + 1 : version;
                            return Uni.createFrom().item(plan.result(after, dryRun));
                        }
                        return write(conn, plan, actor).map(after -> plan.result(after, false));
                    });
                }));
    }

    private Uni<Long> write(SqlConnection conn, Plan plan, String actor) {
        return log.nextVersion(conn)
                .call(version -> Multi.createFrom()
                        .iterable(plan.changes())
                        .onItem()
                        .transformToUniAndConcatenate(c -> log.apply(conn, version, c.operation(), c.rule(), actor))
                        .collect()
                        .last())
                .call(version -> log.announce(conn, version));
    }

    private Uni<Map<String, Rule>> current(SqlConnection conn) {
        return conn.query("SELECT id, body::text AS body FROM rules")
                .execute()
                .map(rows -> {
                    Map<String, Rule> byId = new TreeMap<>();
                    for (Row row : rows) {
                        byId.put(row.getString("id"), codec.parseRule(row.getString("body")));
                    }
                    return byId;
                });
    }

    private record Change(Operation operation, Rule rule) {
    }

    /** The difference between the stored rules and the wanted ones. */
    private record Plan(List<Change> changes, List<String> created, List<String> changed, List<String> deleted,
            List<String> unchanged) {

        static Plan of(Map<String, Rule> existing, List<Rule> wanted) {
            Plan plan = new Plan(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>());
            Map<String, Rule> byId = new LinkedHashMap<>();
            wanted.stream().sorted((a, b) -> a.id().compareTo(b.id())).forEach(r -> byId.put(r.id(), r));
            byId.forEach((id, rule) -> {
                Rule old = existing.get(id);
                if (old == null) {
                    plan.add(Operation.CREATE, rule, plan.created);
                } else if (!old.equals(rule)) {
                    plan.add(Operation.REPLACE, rule, plan.changed);
                } else {
                    plan.unchanged.add(id);
                }
            });
            existing.forEach((id, old) -> {
                if (!byId.containsKey(id)) {
                    plan.add(Operation.DELETE, old, plan.deleted);
                }
            });
            return plan;
        }

        private void add(Operation operation, Rule rule, List<String> ids) {
            changes.add(new Change(operation, rule));
            ids.add(rule.id());
        }

        boolean changesAnything() {
            return !changes.isEmpty();
        }

        ImportResult result(long version, boolean dryRun) {
            return new ImportResult(version, dryRun, List.copyOf(created), List.copyOf(changed), List.copyOf(deleted),
                    List.copyOf(unchanged));
        }
    }
}
