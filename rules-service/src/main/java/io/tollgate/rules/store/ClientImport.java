package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.DirectoryValidator;
import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.RuleSet;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The bulk import of clients, all-or-nothing, in one transaction: every batch of lines is checked against the
 * rules in force and staged (multi-row inserts of arrays into a temporary table), the next batch being read and
 * parsed while one is written; then, under the directory's
 * lock, keys given twice and tenants that do not exist are looked for in SQL; with any bad line the transaction
 * rolls back and every bad line is named; else the staged entries that differ from the stored ones are merged,
 * each taking the next seq in line order, with one revision each, in two set-based statements.
 */
@ApplicationScoped
public class ClientImport {

    /** At most this many errors are named in a refusal (the count covers all). */
    public static final int MAX_ERRORS_NAMED = 1_000;
    private static final Logger LOG = Logger.getLogger(ClientImport.class);

    private final Pool pool;
    private final DirectoryCodec codec;
    private final DirectoryLog log;
    private final RuleStore rules;

    ClientImport(Pool pool, DirectoryCodec codec, DirectoryLog log, RuleStore rules) {
        this.pool = pool;
        this.codec = codec;
        this.log = log;
        this.rules = rules;
    }

    /** Imports every line {@code source} gives, or with {@code dryRun} only says what that would do. */
    public Uni<ClientImportResult> run(ImportSource source, String actor, boolean dryRun) {
        Tally tally = new Tally();
        return pool.withTransaction(conn -> conn.query("SET LOCAL work_mem = '256MB'").execute()
                .chain(() -> conn.query("""
                        CREATE TEMPORARY TABLE client_import (line bigint NOT NULL, digest text NOT NULL,
                            body jsonb NOT NULL) ON COMMIT DROP""").execute())
                .chain(() -> rules.all(conn))
                .invoke(set -> tally.rules = set)
                .chain(() -> stageAll(conn, source, tally))
                .invoke(() -> tally.lap())
                .chain(() -> duplicates(conn, tally))
                .chain(() -> log.lock(conn))
                // under the lock: no tenant goes away, no client changes, until this commits
                .call(() -> unknownTenants(conn, tally))
                .invoke(tally::throwIfAny)
                .chain(seq -> counts(conn, tally, seq, dryRun))
                .invoke(() -> tally.lap())
                .chain(counted -> dryRun || counted.created() + counted.changed() == 0
                        ? Uni.createFrom().item(counted)
                        : merge(conn, counted, actor)))
                .invoke(result -> LOG.infof("client import by %s%s: %d lines, %d created, %d changed, %d unchanged,"
                        + " seq %d; %s", actor, dryRun ? " (dry run)" : "", result.lines(), result.created(),
                        result.changed(), result.unchanged(), result.seq(), tally.laps()));
    }

    /** Stages every batch {@code source} gives, reading the next batch while one is written. */
    private Uni<Void> stageAll(SqlConnection conn, ImportSource source, Tally tally) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        step(conn, source, source.next().subscribeAsCompletionStage(), tally, done);
        return Uni.createFrom().completionStage(done);
    }

    /**
     * Stages the batch {@code current} brings, then starts the next step: each step is a chain of its own, so a
     * written batch is garbage at once (one chain nesting every step would hold them all to the end).
     */
    private void step(SqlConnection conn, ImportSource source, CompletableFuture<ImportBatch> current, Tally tally,
            CompletableFuture<Void> done) {
        Uni.createFrom().completionStage(current)
                .chain(batch -> {
                    if (batch.end()) {
                        done.complete(null);
                        return Uni.createFrom().voidItem();
                    }
                    CompletableFuture<ImportBatch> next = source.next().subscribeAsCompletionStage();
                    return Uni.createFrom().item(() -> staged(batch, tally))
                            .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                            .chain(rows -> rows == null
                                    ? Uni.createFrom().voidItem()
                                    : conn.preparedQuery("""
                                            INSERT INTO client_import (line, digest, body)
                                            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]::jsonb[])""")
                                            .execute(rows)
                                            .replaceWithVoid())
                            .invoke(() -> step(conn, source, next, tally, done));
                })
                .subscribe().with(v -> {
                }, done::completeExceptionally);
    }

    /** The rows of {@code batch} that fit the rules, as the arrays of one insert; {@code null} when none. */
    private Tuple staged(ImportBatch batch, Tally tally) {
        tally.count(batch);
        List<Long> numbers = new ArrayList<>(batch.lines().size());
        List<String> digests = new ArrayList<>(batch.lines().size());
        List<String> bodies = new ArrayList<>(batch.lines().size());
        for (ImportBatch.Line line : batch.lines()) {
            List<FieldError> misfits = DirectoryValidator.fit(line.entry(), tally.rules);
            if (!misfits.isEmpty()) {
                misfits.forEach(e -> tally.reject(LineError.of(line.number(), e)));
                continue;
            }
            numbers.add(line.number());
            digests.add(line.digest());
            bodies.add(codec.write(line.entry()));
        }
        return numbers.isEmpty()
                ? null
                : Tuple.of(numbers.toArray(new Long[0]), digests.toArray(new String[0]), bodies.toArray(new String[0]));
    }

    private Uni<Void> duplicates(SqlConnection conn, Tally tally) {
        return conn.preparedQuery("""
                WITH repeated AS (
                    SELECT digest, min(line) AS first FROM client_import GROUP BY digest HAVING count(*) > 1)
                SELECT i.line, r.first, count(*) OVER () AS total
                FROM client_import i JOIN repeated r USING (digest)
                WHERE i.line <> r.first ORDER BY i.line LIMIT $1""")
                .execute(Tuple.of(MAX_ERRORS_NAMED))
                .invoke(rows -> tally.rejectAll(rows, row -> new LineError(row.getLong("line"), "key", null,
                        "repeats the key of line " + row.getLong("first"))))
                .replaceWithVoid();
    }

    private Uni<Void> unknownTenants(SqlConnection conn, Tally tally) {
        return conn.preparedQuery("""
                SELECT i.line, i.body ->> 'tenant' AS tenant, count(*) OVER () AS total
                FROM client_import i
                WHERE i.body ? 'tenant' AND NOT EXISTS (
                    SELECT 1 FROM tenants t WHERE t.id = i.body ->> 'tenant' AND t.body IS NOT NULL)
                ORDER BY i.line LIMIT $1""")
                .execute(Tuple.of(MAX_ERRORS_NAMED))
                .invoke(rows -> tally.rejectAll(rows, row -> new LineError(row.getLong("line"), "tenant",
                        row.getString("tenant"), "is not a tenant")))
                .replaceWithVoid();
    }

    private Uni<ClientImportResult> counts(SqlConnection conn, Tally tally, long seq, boolean dryRun) {
        return conn.query("""
                SELECT count(*) FILTER (WHERE c.body IS NULL) AS created,
                       count(*) FILTER (WHERE c.body IS NOT NULL AND c.body <> i.body) AS changed,
                       count(*) AS staged
                FROM client_import i LEFT JOIN clients c ON c.digest = i.digest""")
                .execute()
                .map(rows -> {
                    Row row = rows.iterator().next();
                    long created = row.getLong("created");
                    long changed = row.getLong("changed");
                    return new ClientImportResult(dryRun, tally.lines, created, changed,
                            row.getLong("staged") - created - changed, seq);
                });
    }

    /** Writes the changed entries at the seqs after {@code counted.seq()}, the directory being locked. */
    private Uni<ClientImportResult> merge(SqlConnection conn, ClientImportResult counted, String actor) {
        return conn.preparedQuery("""
                WITH changes AS (
                    SELECT i.digest, i.body, c.body IS NULL AS created,
                           $1 + row_number() OVER (ORDER BY i.line) AS seq
                    FROM client_import i LEFT JOIN clients c ON c.digest = i.digest
                    WHERE c.body IS DISTINCT FROM i.body),
                written AS (
                    -- in seq order (as changes come): the table then lies in the order gateways read it
                    INSERT INTO clients (digest, body, seq, updated_at, updated_by)
                    SELECT digest, body, seq, now(), $2 FROM changes
                    ON CONFLICT (digest) DO UPDATE SET body = EXCLUDED.body, seq = EXCLUDED.seq,
                        updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by)
                INSERT INTO directory_revisions (seq, kind, name, operation, actor, at, body)
                SELECT seq, 'client', digest, CASE WHEN created THEN 'create' ELSE 'replace' END, $2, now(), body
                FROM changes""")
                .execute(Tuple.of(counted.seq(), actor))
                .chain(() -> log.advance(conn, counted.created() + counted.changed()))
                .call(seq -> log.announce(conn, seq))
                .map(seq -> new ClientImportResult(false, counted.lines(), counted.created(), counted.changed(),
                        counted.unchanged(), seq));
    }

    /** What the lines read so far came to: how many, the errors found, and how long each step took. */
    private static final class Tally {

        RuleSet rules;
        long lines;
        long errorCount;
        final List<LineError> named = new ArrayList<>();
        private final long startNanos = System.nanoTime();
        private final List<Long> lapNanos = new ArrayList<>();

        /** Notes the end of a step: read and staged, then checked. */
        void lap() {
            lapNanos.add(System.nanoTime());
        }

        /** How long each step took, for the log. */
        String laps() {
            lap();
            List<String> steps = List.of("read and staged", "checked", "merged and committed");
            StringBuilder out = new StringBuilder();
            long from = startNanos;
            for (int i = 0; i < lapNanos.size() && i < steps.size(); i++) {
                out.append(i == 0 ? "" : ", ").append(steps.get(i)).append(" in ")
                        .append((lapNanos.get(i) - from) / 1_000_000).append(" ms");
                from = lapNanos.get(i);
            }
            return out.toString();
        }

        /** Counts the lines of {@code batch} and notes its errors. */
        void count(ImportBatch batch) {
            lines += batch.lines().size() + batch.errors().stream().mapToLong(LineError::line).distinct().count();
            batch.errors().forEach(this::reject);
        }

        void reject(LineError error) {
            errorCount++;
            if (named.size() < MAX_ERRORS_NAMED) {
                named.add(error);
            }
        }

        /** The rows of a check that names its first errors and counts them all in its column {@code total}. */
        void rejectAll(RowSet<Row> rows, Function<Row, LineError> error) {
            rows.forEach(row -> named.add(error.apply(row)));
            if (rows.size() > 0) {
                errorCount += rows.iterator().next().getLong("total");
            }
        }

        void throwIfAny() {
            if (errorCount > 0) {
                List<LineError> first = named.stream()
                        .sorted(Comparator.comparingLong(LineError::line))
                        .limit(MAX_ERRORS_NAMED)
                        .toList();
                throw new ImportRejectedException(first, errorCount);
            }
        }
    }
}
