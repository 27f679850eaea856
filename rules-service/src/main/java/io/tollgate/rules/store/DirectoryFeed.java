package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * first, each in its latest state (a client changed three times is one entry), deletes as tombstones. Gateways at
 * the same seq (after a bulk import, every gateway of the fleet) ask for the same pages: a page asked for again
 * while the directory's seq has not moved is the one already read, so the fleet costs one read of each page, not
 * one per gateway. Any page read after {@code since} is a true page, so sharing never serves one the directory
 * has moved past unseen: a change moves the seq, and the next ask reads anew.
 */
@ApplicationScoped
public class DirectoryFeed {

    /** Pages kept for sharing: the last few read (at most 50,000 entries each, a few MB). */
    static final int SHARED_PAGES = 4;

    private final Pool pool;
    private final DirectoryCodec codec;
    private final Map<PageKey, Uni<Page>> recent = new LinkedHashMap<>(16, 0.75f, true) {

        @Override
        protected boolean removeEldestEntry(Map.Entry<PageKey, Uni<Page>> eldest) {
            return size() > SHARED_PAGES;
        }
    };

    /** A page as asked for, at the directory's seq when it was asked. */
    private record PageKey(long since, int limit, long current) {
    }

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
     * @param current
     * the directory's last change when the page was asked for: how far behind its reader is
     */
    public record Page(String json, boolean reset, long current) {
    }

    /** The seq of the last committed directory change. */
    public Uni<Long> seq() {
        return DirectoryLog.current(pool);
    }

    /** At most {@code limit} entries changed after {@code since}, oldest first. */
    public Uni<Page> since(long since, int limit) {
        return seq().chain(current -> shared(new PageKey(since, limit, current)));
    }

    /** The page {@code key} names: the read in flight or done for it, or a new one. */
    private Uni<Page> shared(PageKey key) {
        synchronized (recent) {
            Uni<Page> page = recent.get(key);
            if (page == null) {
                page = read(key.since(), key.limit(), key.current())
                        .onFailure().invoke(() -> forget(key))
                        .memoize().indefinitely();
                recent.put(key, page);
            }
            return page;
        }
    }

    private void forget(PageKey key) {
        synchronized (recent) {
            recent.remove(key);
        }
    }

    private Uni<Page> read(long since, int limit, long current) {
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
                .map(rows -> new Page(changes(rows, from, limit), reset, current));
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
