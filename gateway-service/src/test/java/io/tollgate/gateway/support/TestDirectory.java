package io.tollgate.gateway.support;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.tollgate.rules.domain.ClientDigest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The rules service's directory as its gateways read it, in memory: every change takes the next sequence number,
 * and {@link #page} answers the entries changed after {@code since}, oldest first, latest state only, at most
 * {@link #MAX_PAGE} a page (small, so every test with a few changes reads several pages). Thread-safe.
 */
final class TestDirectory {

    /** The most changes one page holds, whatever the gateway asks for. */
    static final int MAX_PAGE = 5;

    /** One entry's latest state: {@code change} as the page shows it, changed at {@code seq}. */
    private record Latest(long seq, String kind, JsonObject change) {
    }

    private final Map<String, Latest> latest = new LinkedHashMap<>();
    private long seq;

    /**
     * Records the changes of {@code body}: {@code {"tenants": [{"id", "entry" | "deleted"}], "clients": [{"key"
     * (raw, digested here) | "digest", "entry" | "deleted"}]}}, tenants first. Returns the last sequence number.
     */
    synchronized long push(JsonObject body) {
        for (Object t : body.getJsonArray("tenants", new JsonArray())) {
            JsonObject tenant = (JsonObject) t;
            record("tenants", tenant.getString("id"), change("id", tenant.getString("id"), tenant));
        }
        for (Object c : body.getJsonArray("clients", new JsonArray())) {
            JsonObject client = (JsonObject) c;
            String digest = client.containsKey("key") ? ClientDigest.of(client.getString("key")) : client.getString("digest");
            record("clients", digest, change("digest", digest, client));
        }
        return seq;
    }

    /** Forgets every change, as a rules service whose database was rebuilt empty. */
    synchronized void clear() {
        latest.clear();
        seq = 0;
    }

    synchronized long seq() {
        return seq;
    }

    /** The page after {@code since}; {@code reset} set when {@code since} is ahead and the page starts from 0. */
    synchronized Page page(long since, int limit) {
        boolean reset = since > seq;
        long from = reset ? 0 : since;
        List<Latest> after = latest.values().stream()
                .filter(l -> l.seq() > from)
                .sorted(Comparator.comparingLong(Latest::seq))
                .toList();
        int n = Math.min(after.size(), Math.min(Math.max(1, limit), MAX_PAGE));
        JsonObject page = new JsonObject()
                .put("seq", n == 0 ? from : after.get(n - 1).seq())
                .put("more", after.size() > n)
                .put("tenants", new JsonArray())
                .put("clients", new JsonArray());
        after.subList(0, n).forEach(l -> page.getJsonArray(l.kind()).add(l.change()));
        return new Page(page.encode(), reset);
    }

    /** The label of each live client among {@code digests}, as {@code GET /api/v1/clients?digest=} answers. */
    synchronized JsonObject labels(List<String> digests) {
        JsonArray clients = new JsonArray();
        for (String digest : digests) {
            Latest l = latest.get("clients/" + digest);
            JsonObject entry = l == null ? null : l.change().getJsonObject("entry");
            if (entry != null) {
                clients.add(new JsonObject().put("digest", digest).put("label", entry.getString("label")));
            }
        }
        return new JsonObject().put("clients", clients);
    }

    /** A page's body and whether it starts from 0 because {@code since} was ahead. */
    record Page(String body, boolean reset) {
    }

    private void record(String kind, String id, JsonObject change) {
        String name = kind + "/" + id;
        latest.remove(name); // re-inserted: the map keeps them in change order
        latest.put(name, new Latest(++seq, kind, change));
    }

    private static JsonObject change(String idField, String id, JsonObject pushed) {
        JsonObject change = new JsonObject().put(idField, id);
        if (pushed.getBoolean("deleted", false) || pushed.getValue("entry") == null) {
            return change.put("deleted", true);
        }
        return change.put("entry", pushed.getJsonObject("entry"));
    }
}
