package io.tollgate.rules.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.json.JsonObject;

/** Each gateway's top, merged: rejections added per client, heaviest first, cut at n. */
class TopMergeTest {

    @Test
    void addsEachClientsRejectionsOverTheGatewaysAndKeepsTheHeaviest() {
        JsonObject one = new JsonObject("""
                {"rule": "r", "clients": [{"digest": "aa", "label": null, "rejected": 10, "error": 0},
                                          {"digest": "bb", "label": "B", "rejected": 8, "error": 0}]}""");
        JsonObject two = new JsonObject("""
                {"rule": "r", "clients": [{"digest": "bb", "label": null, "rejected": 7, "error": 1},
                                          {"digest": "cc", "label": "C", "rejected": 9, "error": 0}]}""");

        assertThat(TopMerge.merge(List.of(one, two), 2)).containsExactly(
                new FleetQueries.TopClient("bb", "B", 15), new FleetQueries.TopClient("aa", null, 10));
        assertThat(TopMerge.merge(List.of(), 5)).isEmpty();
    }
}
