package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.DirectoryCodec.StoredChange;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * What gateways read to keep their copy of the directory: the entries whose last change is after a seq, oldest
 * first, each in its latest state (a client changed three times is one entry), deletes as tombstones.
 */
@ApplicationScoped
public class DirectoryFeed {

    private final Pool pool;
    private final DirectoryCodec codec;

    DirectoryFeed(Pool pool, DirectoryCodec codec) {
        this.pool = pool;
        this.codec = codec;
    }

    /**
     * A page of changes.
     *
     * @param json
     * the page, as {@code DirectoryCodec} writes and reads it
     * @param reset
     * true when the seq asked for is ahead of the directory (a rebuilt database): the page then starts from 0,
     * and the reader drops what it has first
     */
    public record Page(String json, boolean reset) {
    }

    /** The seq of the last committed directory change. */
    public Uni<Long> seq() {
        return DirectoryLog.current(pool);
    }

    /** At most {@code limit} entries changed after {@code since}, oldest first. */
    public Uni<Page> since(long since, int limit) {
        return seq().chain(current -> {
            boolean reset = since > current;
            long from = reset ? 0 : since;
            // each table read in seq order through its index, then merged: never a scan and sort of all after since
            return pool.preparedQuery("""
                    (SELECT 't' AS kind, id AS name, body::text AS body, seq FROM tenants
                     WHERE seq > $1 ORDER BY seq LIMIT $2)
                    UNION ALL
                    (SELECT 'c', digest, body::text, seq FROM clients WHERE seq > $1 ORDER BY seq LIMIT $2)
                    ORDER BY seq LIMIT $2""")
                    .execute(Tuple.of(from, limit + 1))
                    // up to 50,000 entries to read back: not on the event loop
                    .emitOn(Infrastructure.getDefaultWorkerPool())
                    .map(rows -> new Page(changes(rows, from, limit), reset));
        });
    }

    /**
     * The page of {@code rows}: the entries as stored (the JSON the codec wrote when the write was checked), so
     * a page costs no parse and no validation of them.
     */
    private String changes(RowSet<Row> rows, long from, int limit) {
        List<StoredChange> tenants = new ArrayList<>();
        List<StoredChange> clients = new ArrayList<>();
        long seq = from;
        int count = 0;
        boolean more = false;
        for (Row row : rows) {
            if (count == limit) {
                more = true;
                break;
            }
            StoredChange change = new StoredChange(row.getString("name"), row.getString("body"));
            (row.getString("kind").equals("t") ? tenants : clients).add(change);
            seq = row.getLong("seq");
            count++;
        }
        return codec.writeChanges(seq, more, tenants, clients);
    }
}
