package io.tollgate.rules.store;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.tollgate.rules.domain.DirectoryCopyFormat;
import io.vertx.core.Vertx;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Cursor;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;

/**
 * Whole copies of the directory, for a gateway far behind (a bulk import, a new gateway, one back from an outage):
 * one read of every live entry in one snapshot of the database, cheaper for the gateway than the pages of changes
 * it stands for. A client is its digest and the number of its profile (its entry without the label, which
 * gateways do not keep): a million clients of a few plans are a few profiles and 36 MB of heap (up to half again
 * while it grows), in {@link DirectoryCopyFormat}. Gateways that ask while the directory stands still (after a bulk import,
 * every
 * gateway of the fleet) share one read; the copy is dropped {@link #KEEP_MS} after it was read.
 */
@ApplicationScoped
public class DirectoryCopies {

    /** How long a copy is kept for gateways that ask for it again while the directory stands still. */
    static final long KEEP_MS = 30_000;
    /** Clients read per round trip to the database. */
    private static final int FETCH = 10_000;
    private static final String SOURCE = "rules-service";

    private final Pool pool;
    private final Vertx vertx;
    /** The copy read or being read, by the directory's seq when it was asked for; guarded by this. */
    private Shared shared;

    private record Shared(long seq, Uni<Copy> copy, Object token) {
    }

    DirectoryCopies(Pool pool, Vertx vertx) {
        this.pool = pool;
        this.vertx = vertx;
    }

    /** A whole copy of the directory, as of its last change or later. */
    public Uni<Copy> copy() {
        return DirectoryLog.current(pool).chain(this::shared);
    }

    private synchronized Uni<Copy> shared(long current) {
        if (shared != null && shared.seq() == current) {
            return shared.copy();
        }
        Object token = new Object();
        Uni<Copy> copy = read()
                .onItemOrFailure().invoke((read, failure) -> {
                    if (failure != null) {
                        forget(token);
                    } else {
                        vertx.setTimer(KEEP_MS, t -> forget(token));
                    }
                })
                .memoize().indefinitely();
        shared = new Shared(current, copy, token);
        return copy;
    }

    private synchronized void forget(Object token) {
        if (shared != null && shared.token() == token) {
            shared = null;
        }
    }

    /** Every live tenant and client, in one repeatable-read transaction: all as of one seq. */
    private Uni<Copy> read() {
        return pool.withTransaction(conn -> conn.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute()
                .chain(() -> DirectoryLog.current(conn))
                .chain(seq -> conn.query("SELECT id, body::text AS body FROM tenants WHERE body IS NOT NULL ORDER BY id")
                        .execute()
                        .map(rows -> new Building(seq, rows)))
                .chain(building -> clients(conn, building)))
                .emitOn(Infrastructure.getDefaultWorkerPool());
    }

    private Uni<Copy> clients(SqlConnection conn, Building building) {
        // by the primary key's order (COLLATE "C": the order of the digests' bytes), the label left out
        return conn.prepare("""
                SELECT decode(digest, 'hex') AS digest, (body - 'label')::text AS profile
                FROM clients WHERE body IS NOT NULL ORDER BY digest""")
                .map(statement -> statement.cursor())
                .chain(cursor -> next(cursor, building))
                .map(Building::copy);
    }

    private Uni<Building> next(Cursor cursor, Building building) {
        return cursor.read(FETCH)
                // ten thousand rows to take in: not on the event loop
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .chain(rows -> {
                    building.add(rows);
                    return cursor.hasMore() ? next(cursor, building) : cursor.close().replaceWith(building);
                });
    }

    /** A copy being read: profiles numbered as they first come. Not thread-safe: one reader. */
    private static final class Building {

        private final long seq;
        private final List<String[]> tenants = new ArrayList<>();
        private final Map<String, Integer> numbers = new HashMap<>();
        private final List<String> profiles = new ArrayList<>();
        private long[] digests = new long[1024 * DirectoryCopyFormat.LONGS];
        private int[] profileOf = new int[1024];
        private int count;

        Building(long seq, RowSet<Row> tenantRows) {
            this.seq = seq;
            for (Row row : tenantRows) {
                tenants.add(new String[]{row.getString("id"), row.getString("body")});
            }
        }

        void add(RowSet<Row> rows) {
            for (Row row : rows) {
                if (count == profileOf.length) {
                    int grown = count + (count >> 1);
                    profileOf = Arrays.copyOf(profileOf, grown);
                    digests = Arrays.copyOf(digests, grown * DirectoryCopyFormat.LONGS);
                }
                Buffer digest = row.getBuffer("digest");
                int at = count * DirectoryCopyFormat.LONGS;
                for (int k = 0; k < DirectoryCopyFormat.LONGS; k++) {
                    digests[at + k] = digest.getLong(k * Long.BYTES);
                }
                profileOf[count++] = numbers.computeIfAbsent(row.getString("profile"), p -> {
                    profiles.add(p);
                    return profiles.size() - 1;
                });
            }
        }

        Copy copy() {
            // the arrays as they are: cut to size, a million clients would be held twice for a moment
            return new Copy(seq, List.copyOf(tenants), List.copyOf(profiles), digests, profileOf, count);
        }
    }

    /**
     * One copy of the directory as of change {@code seq}: tenants (id and entry JSON), the distinct client profiles
     * (entry JSON without label), and the first {@code clients} clients of {@code digests}
     * ({@link DirectoryCopyFormat#LONGS} longs each) and {@code profileOf}, in digest order.
     */
    public record Copy(long seq, List<String[]> tenants, List<String> profiles, long[] digests, int[] profileOf,
            int clients) {

        /** Writes it in {@link DirectoryCopyFormat}. Blocking. */
        public void writeTo(OutputStream to) throws IOException {
            DirectoryCopyFormat.Writer out = new DirectoryCopyFormat.Writer(to, SOURCE, seq);
            out.tenants(tenants.size());
            for (String[] tenant : tenants) {
                out.tenant(tenant[0], tenant[1]);
            }
            out.profiles(profiles.size());
            for (String profile : profiles) {
                out.profile(profile);
            }
            out.clients(clients);
            for (int i = 0; i < clients; i++) {
                int at = i * DirectoryCopyFormat.LONGS;
                out.client(digests[at], digests[at + 1], digests[at + 2], digests[at + 3], profileOf[i]);
            }
            out.finish();
        }
    }
}
