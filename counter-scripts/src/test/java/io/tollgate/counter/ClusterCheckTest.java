package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.testing.RedisCluster;

/** The check and peek scripts on a real Redis Cluster of 3 primaries with a replica each, through the cluster client. */
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
    void peek_and_reset_work_on_every_primary_and_change_nothing_but_the_reset_key() {
        long now = RedisScriptTestBase.base();
        List<String> keys = IntStream.range(0, 60).mapToObj(i -> CounterKeys.key("peek", "client-" + i)).toList();
        assertThat(keys.stream().map(cluster::ownerOf).distinct()).hasSameSizeAs(cluster.primaries());
        List<String> checked = keys.subList(0, 30);
        checked.forEach(key -> client.check(List.of(key), List.of(TB), 5, now));

        for (String key : keys) {
            Peek expected = checked.contains(key) ? new Peek(true, 15, 500) : new Peek(false, 20, 0);
            assertThat(client.peek(List.of(key), List.of(TB), now)).as(key).containsExactly(expected);
        }
        for (String key : keys) {
            assertThat(client.send("DEL", key).toLong()).as("%s reset, it existed", key)
                    .isEqualTo(checked.contains(key) ? 1 : 0);
        }

        for (String key : keys) {
            assertThat(client.peek(List.of(key), List.of(TB), now)).as(key).containsExactly(new Peek(false, 20, 0));
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

    @Test
    void clients_of_one_node_in_one_call_decide_and_spend_as_their_calls_one_by_one_would() {
        String node = cluster.primaries().get(0);
        long now = RedisScriptTestBase.base();
        Policy fixed = new Policy(Algorithm.FIXED_WINDOW, 2, 60_000, 2);
        List<Policy> policies = List.of(TB, fixed);
        // two sets of the same history on one node: one call by call with check, one in one call of
        // check_on_node; the last client is the second again (its second check sees the first's spend)
        List<List<Decision>> alone = new ArrayList<>();
        List<CheckCall> together = new ArrayList<>();
        List<List<String>> aloneKeys = clientsOn(node, "alone", 3);
        List<List<String>> togetherKeys = clientsOn(node, "together", 3);
        client.check(aloneKeys.get(1), policies, 1, now); // one of its window's two spent
        client.check(togetherKeys.get(1), policies, 1, now);
        for (int i = 0; i < 4; i++) {
            int who = i == 3 ? 1 : i;
            alone.add(client.check(CheckCall.of(aloneKeys.get(who), policies, 1, OptionalLong.of(now + 1000))));
            together.add(CheckCall.of(togetherKeys.get(who), policies, 1, OptionalLong.of(now + 1000)));
        }
        Set<Long> slots = new HashSet<>();
        togetherKeys.forEach(keys -> slots.add(client.send("CLUSTER KEYSLOT", keys.get(0)).toLong()));
        assertThat(slots).as("the clients' keys are in different slots of one node").hasSize(3);

        List<Decision> all = client.checkOnOneNode(CheckCall.together(together));

        List<List<Decision>> split = new ArrayList<>();
        for (int i = 0, at = 0; i < together.size(); at += together.get(i).keys().size(), i++) {
            split.add(all.subList(at, at + together.get(i).keys().size()));
        }
        assertThat(split).isEqualTo(alone);
        assertThat(alone.get(1)).allMatch(Decision::allowed);
        assertThat(alone.get(3).get(1).allowed()).isFalse(); // its window of two is spent by then
        assertThat(alone.get(3).get(0).remaining()).isEqualTo(alone.get(1).get(0).remaining()); // nothing spent
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < aloneKeys.get(i).size(); k++) {
                assertThat(StoredValues.describe(client.send("GET", togetherKeys.get(i).get(k))))
                        .as("stored value of client %d key %d", i, k)
                        .isEqualTo(StoredValues.describe(client.send("GET", aloneKeys.get(i).get(k))));
            }
        }
    }

    @Test
    void a_key_of_another_node_fails_the_call_before_anything_is_written() {
        List<String> nodes = cluster.primaries();
        long now = RedisScriptTestBase.base();
        List<String> here = clientsOn(nodes.get(0), "here", 2).stream().map(keys -> keys.get(0)).toList();
        String elsewhere = clientsOn(nodes.get(1), "elsewhere", 1).get(0).get(0);
        List<CheckCall> calls = new ArrayList<>();
        for (String key : List.of(here.get(0), here.get(1), elsewhere)) {
            calls.add(CheckCall.of(List.of(key), List.of(TB), 1, OptionalLong.of(now)));
        }

        assertThatThrownBy(() -> client.checkOnOneNode(CheckCall.together(calls)))
                .hasMessageContaining("non local key");

        for (String key : List.of(here.get(0), here.get(1), elsewhere)) {
            assertThat(client.send("GET", key)).as(key).isNull();
        }
    }

    @Test
    void the_arguments_on_one_node_declare_the_first_clients_keys_and_carry_the_others() {
        CheckCall a = CheckCall.of(List.of("rl:a:{x}", "rl:b:{x}"), List.of(TB, TB), 1, OptionalLong.empty());
        CheckCall b = CheckCall.of(List.of("rl:a:{y}"), List.of(TB), 1, OptionalLong.empty());
        CheckCall both = CheckCall.together(List.of(a, b));

        CheckCall c = CheckCall.of(List.of("rl:b:{y}"), List.of(TB), 1, OptionalLong.empty());
        List<String> policy = List.of("token_bucket", "10", "1000", "20", "1");

        assertThat(both.evalArgsOnOneNode(1)).containsExactlyElementsOf(concat(List.of("2", "rl:a:{x}", "rl:b:{x}",
                "1", "rl:a:{y}", ""), policy, policy, policy, List.of("2", "1")));
        assertThat(a.evalArgsOnOneNode(1)).containsExactlyElementsOf(concat(List.of("2", "rl:a:{x}", "rl:b:{x}", "0",
                ""), policy, policy));
        // two clients of one slot declared, the third carried
        List<String> threeArgs = CheckCall.together(List.of(b, c, a)).evalArgsOnOneNode(2);
        assertThat(threeArgs.subList(0, 7)).containsExactly("2", "rl:a:{y}", "rl:b:{y}", "2", "rl:a:{x}", "rl:b:{x}",
                "");
        assertThat(threeArgs.subList(7, threeArgs.size())).containsExactlyElementsOf(concat(policy, policy, policy,
                policy, List.of("1", "1", "2")));
        assertThatThrownBy(() -> both.evalArgsOnOneNode(3)).hasMessageContaining("from 1 to 2");
        assertThatThrownBy(() -> a.evalArgsOnOneNode(0)).hasMessageContaining("from 1 to 1");
    }

    @Test
    void leases_token_buckets_and_settlements_of_several_slots_of_one_node_in_one_call() {
        String node = cluster.primaries().get(0);
        long now = RedisScriptTestBase.base();
        List<String> who = clientsIdsOn(node, "lease", 3);
        String lease = CounterKeys.key("inflight", who.get(0));
        String bucket = CounterKeys.key("tb", who.get(1));
        String settled = CounterKeys.key("tb", who.get(2));
        client.check(List.of(settled), List.of(TB), 5, now);
        Set<Long> slots = new HashSet<>();
        List.of(lease, bucket, settled).forEach(key -> slots.add(client.send("CLUSTER KEYSLOT", key).toLong()));
        assertThat(slots).as("three slots of one node").hasSize(3);
        OptionalLong at = OptionalLong.of(now);

        // the bucket's client declared; the others' keys, none in its slot, carried
        List<Decision> all = client.checkOnOneNode(CheckCall.together(List.of(
                CheckCall.of(List.of(bucket), List.of(TB), at),
                CheckCall.of(List.of(lease), List.of(Policy.slot(2, 1000, 1)), at),
                CheckCall.settle(List.of(settled), List.of(TB), List.of(30L), at),
                CheckCall.of(List.of(settled), List.of(TB), at),
                CheckCall.of(List.of(lease), List.of(Policy.slot(2, 1000, 2)), at),
                CheckCall.of(List.of(lease), List.of(Policy.slot(2, 1000, 3)), at))));

        // the check after the settlement sees its debt; the third lease finds both slots taken
        assertThat(all).containsExactly(new Decision(true, 19, 0, 100), new Decision(true, 1, 0, 0),
                new Decision(true, -15, 0, 3500), new Decision(false, -15, 1600, 3500), new Decision(true, 0, 0, 0),
                new Decision(false, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, lease)).isEqualTo(
                "z:1@" + (now + 1_000_000) + ":2@" + (now + 1_000_000));
        assertThat(client.release(lease, 2)).isTrue();
        assertThat(client.peek(List.of(lease), List.of(Policy.slot(2, 1000, 4)), now)).containsExactly(
                new Peek(true, 1, 0));
        assertThat(client.peek(List.of(settled), List.of(TB), now)).containsExactly(new Peek(true, -15, 3500));
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        List<String> all = new ArrayList<>();
        for (List<String> list : lists) {
            all.addAll(list);
        }
        return all;
    }

    /** {@code count} clients (each an ordered list of its bucket keys) whose keys live on {@code node}. */
    private static List<List<String>> clientsOn(String node, String prefix, int count) {
        return clientsIdsOn(node, prefix, count).stream()
                .map(who -> List.of(CounterKeys.key("tb", who), CounterKeys.key("fw", who)))
                .toList();
    }

    /** {@code count} client keys whose buckets live on {@code node}. */
    private static List<String> clientsIdsOn(String node, String prefix, int count) {
        List<String> out = new ArrayList<>();
        String run = prefix + "-" + System.nanoTime();
        for (int i = 0; out.size() < count; i++) {
            String who = run + "-" + i;
            if (cluster.ownerOf(CounterKeys.key("tb", who)).equals(node)) {
                out.add(who);
            }
        }
        return out;
    }
}
