package io.tollgate.rules.live;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The fleet's most rejected clients of a rule from each gateway's {@code /tollgate/top} answer: each client's
 * rejections added over the gateways, heaviest first (ties by digest), the first {@code n}. Each gateway names
 * only its own heaviest, so a client just under every gateway's list may be missing: the merge is as good as
 * the lists it is given.
 */
final class TopMerge {

    private TopMerge() {
    }

    static List<FleetQueries.TopClient> merge(List<JsonObject> answers, int n) {
        Map<String, long[]> rejections = new HashMap<>();
        Map<String, String> labels = new HashMap<>();
        for (JsonObject answer : answers) {
            for (Object c : answer.getJsonArray("clients", new JsonArray())) {
                if (c instanceof JsonObject client && client.getString("digest") != null) {
                    String digest = client.getString("digest");
                    rejections.computeIfAbsent(digest, d -> new long[1])[0] += client.getLong("rejected", 0L);
                    if (client.getString("label") != null) {
                        labels.putIfAbsent(digest, client.getString("label"));
                    }
                }
            }
        }
        List<FleetQueries.TopClient> clients = new ArrayList<>(rejections.size());
        rejections.forEach((digest, count) -> clients.add(new FleetQueries.TopClient(digest, labels.get(digest), count[0])));
        clients.sort(Comparator.comparingLong(FleetQueries.TopClient::rejections).reversed()
                .thenComparing(FleetQueries.TopClient::client));
        return clients.size() > n ? List.copyOf(clients.subList(0, n)) : clients;
    }
}
