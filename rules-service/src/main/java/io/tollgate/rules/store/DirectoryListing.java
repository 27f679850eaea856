package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.TenantEntry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;

/** The live tenants and clients, a page at a time in the order of their names (keyset paging: no offsets). */
@ApplicationScoped
public class DirectoryListing {

    private final Pool pool;
    private final DirectoryCodec codec;

    DirectoryListing(Pool pool, DirectoryCodec codec) {
        this.pool = pool;
        this.codec = codec;
    }

    /** A client as listed: its digest, tenant and label, never its key. */
    @JsonPropertyOrder({"digest", "tenant", "label"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ClientSummary(String digest, String tenant, String label) {
    }

    /** A tenant as listed: its id and entry. */
    public record TenantSummary(String id, TenantEntry entry) {
    }

    /**
     * One page.
     *
     * @param items
     * at most the limit asked for
     * @param last
     * the name of the last item when more follow (the next page starts after it); {@code null} at the end
     */
    public record Page<T>(List<T> items, String last) {
    }

    /** The clients after digest {@code after} ({@code ""}: from the start), of one tenant or ({@code null}) all. */
    public Uni<Page<ClientSummary>> clients(String tenant, String after, int limit) {
        String columns = "SELECT digest, tenant, body ->> 'label' AS label FROM clients WHERE body IS NOT NULL";
        Uni<RowSet<Row>> rows = tenant == null
                ? pool.preparedQuery(columns + " AND digest > $1 ORDER BY digest LIMIT $2")
                        .execute(Tuple.of(after, limit + 1))
                : pool.preparedQuery(columns + " AND tenant = $1 AND digest > $2 ORDER BY tenant, digest LIMIT $3")
                        .execute(Tuple.of(tenant, after, limit + 1));
        return rows.map(set -> page(set, limit, row -> new ClientSummary(row.getString("digest"),
                row.getString("tenant"), row.getString("label")), ClientSummary::digest));
    }

    /** The live clients among {@code digests} (each the SHA-256 hex of a key), by digest: one page, no cursor. */
    public Uni<List<ClientSummary>> clients(List<String> digests) {
        return pool.preparedQuery("""
                SELECT digest, tenant, body ->> 'label' AS label FROM clients
                WHERE body IS NOT NULL AND digest = ANY($1) ORDER BY digest""")
                .execute(Tuple.of(digests.toArray(new String[0])))
                .map(set -> page(set, digests.size(), row -> new ClientSummary(row.getString("digest"),
                        row.getString("tenant"), row.getString("label")), ClientSummary::digest).items());
    }

    /** The tenants after id {@code after} ({@code ""}: from the start). */
    public Uni<Page<TenantSummary>> tenants(String after, int limit) {
        return pool.preparedQuery("""
                SELECT id, body::text AS body FROM tenants
                WHERE body IS NOT NULL AND id > $1 ORDER BY id LIMIT $2""")
                .execute(Tuple.of(after, limit + 1))
                .map(rows -> page(rows, limit, row -> new TenantSummary(row.getString("id"),
                        EntryKind.TENANT.read(codec, row.getString("body"))), TenantSummary::id));
    }

    private static <T> Page<T> page(RowSet<Row> rows, int limit, Function<Row, T> item,
            Function<T, String> name) {
        List<T> items = new ArrayList<>();
        for (Row row : rows) {
            if (items.size() == limit) {
                return new Page<>(items, name.apply(items.get(limit - 1)));
            }
            items.add(item.apply(row));
        }
        return new Page<>(items, null);
    }
}
