package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.testing.RedisCluster;

/** The check script on a real Redis Cluster of 3 primaries with a replica each, through the cluster client. */
class ClusterCheckTest {

    static final Policy TB = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);

    static RedisCluster cluster;
    static ScriptClient client;

    @BeforeAll
    static void startCluster() {
        cluster = new RedisCluster(3, 1);
        client = ScriptClient.cluster(cluster.addresses());
    }

    @AfterAll
    static void stopCluster() {
        client.close();
        cluster.close();
    }

    @Test
    void cluster_has_three_primaries_among_six_nodes() {
        assertThat(cluster.addresses()).hasSize(6);
        assertThat(cluster.primaries()).hasSize(3);
    }

    @Test
    void keys_of_many_clients_spread_over_every_primary_and_every_call_works() {
        long now = RedisScriptTestBase.base();
        List<String> keys = IntStream.range(0, 300).mapToObj(i -> CounterKeys.key("spread", "client-" + i)).toList();

        for (String key : keys) {
            assertThat(client.check(List.of(key), List.of(TB), 1, now)).containsExactly(new Decision(true, 19, 0, 100));
        }

        Map<String, Long> perPrimary = keys.stream()
                .collect(Collectors.groupingBy(cluster::ownerOf, Collectors.counting()));
        assertThat(perPrimary.keySet()).containsExactlyInAnyOrderElementsOf(cluster.primaries());
        assertThat(perPrimary.values()).allSatisfy(count -> assertThat(count).isGreaterThan(50));
        for (String key : keys) {
            assertThat(StoredValues.describe(client.send("GET", key))).as(key).startsWith("t:19:");
        }
    }

    @Test
    void one_client_multi_key_call_across_algorithms_works_on_one_shard() {
        String who = "fleet-car-7";
        List<String> keys = List.of(CounterKeys.key("orders.write", who), CounterKeys.key("orders.read", who),
                CounterKeys.key("burst", who), CounterKeys.key("daily", who));
        List<Policy> policies = List.of(TB, new Policy(Algorithm.GCRA, 10, 1000, 5),
                new Policy(Algorithm.SLIDING_WINDOW, 5, 1000, 5), new Policy(Algorithm.FIXED_WINDOW, 2, 60_000, 2));
        Set<String> owners = new HashSet<>(keys.stream().map(cluster::ownerOf).toList());
        assertThat(owners).hasSize(1);
        long now = RedisScriptTestBase.base();

        assertThat(client.check(keys, policies, 1, now).stream().map(Decision::remaining)).containsExactly(19L, 4L, 4L,
                1L);
        assertThat(client.check(keys, policies, 1, now).stream().map(Decision::remaining)).containsExactly(18L, 3L, 3L,
                0L);
        List<Decision> third = client.check(keys, policies, 1, now);
        assertThat(third.stream().map(Decision::allowed)).containsExactly(true, true, true, false);
        // nothing spent: the token bucket still holds 18
        assertThat(third.get(0).remaining()).isEqualTo(18);
    }
}
