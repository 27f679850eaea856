package io.tollgate.gateway.store;

import static io.tollgate.gateway.store.OnLoopTestBase.all;
import static io.tollgate.gateway.store.OnLoopTestBase.onLoop;
import static io.tollgate.gateway.store.OnLoopTestBase.startOnLoop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;

/**
 * The store with coalescing on a real Redis Cluster (three primaries): the checks one loop turn asks for go as
 * one call per node ({@code check_on_node}), each decided on its own, in order; a flushed script cache heals
 * without a double spend, and a stale map of slots costs the grouping, never an answer or a second spend.
 */
class ClusterCoalescingTest extends OnClusterTestBase {

    private static final Policy FIVE = new Policy(Algorithm.TOKEN_BUCKET, 5, 3_600_000, 5);
    private static final int CLIENTS = 30;
    /** Where a stale map puts every slot: a node that is not there. */
    private static final String NOWHERE = "127.0.0.1:1";

    @Test
    void theChecksOfOneLoopTurnGoAsOneCallPerNodeEachDecidedInOrder() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, true);
        String run = "turn-" + System.nanoTime();
        onLoop(loop, () -> all(turn(store, run + "-warm", CLIENTS))); // connects; loads the script on each node
        long bucketReads = calls("get");
        long idle = sum("total_reads_processed");
        calls("evalsha");
        calls("evalsha");
        // what looking costs: each redis-cli run is reads on every node too (its command, its close)
        long looking = sum("total_reads_processed") - idle;
        long reads = sum("total_reads_processed");
        long evalshas = calls("evalsha");

        // one client's 10 checks on a bucket of 5, among CLIENTS clients' one each, all in one loop turn
        List<List<Decision>> decisions = onLoop(loop, () -> {
            List<Future<List<Decision>>> checks = new ArrayList<>(turn(store, run, CLIENTS));
            IntStream.range(0, 10).forEach(i -> checks.add(store.check(List.of(bucket(run, "same")))));
            return all(checks);
        });

        long scriptCalls = calls("evalsha") - evalshas;
        long readsOfChecks = sum("total_reads_processed") - reads - looking;
        // 40 checks are two sends (at most 32 each), each at most one call per node, where one per check was 40
        assertThat(scriptCalls).as("script calls for %d checks", CLIENTS + 10).isLessThanOrEqualTo(2L * primaries
                .size());
        assertThat(calls("get") - bucketReads).as("each check reads its bucket once").isEqualTo(CLIENTS + 10);
        assertThat(readsOfChecks).as("socket reads on %d primaries for %d checks", primaries.size(), CLIENTS + 10)
                .isLessThanOrEqualTo(2L * primaries.size());
        assertThat(decisions.subList(0, CLIENTS)).allSatisfy(d -> assertThat(d).extracting(Decision::remaining)
                .containsExactly(4L));
        List<Decision> same = decisions.subList(CLIENTS, CLIENTS + 10).stream().map(d -> d.get(0)).toList();
        assertThat(same).extracting(Decision::allowed).containsExactly(true, true, true, true, true, false, false,
                false, false, false);
        assertThat(same.subList(0, 5)).extracting(Decision::remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
    }

    @Test
    void aScriptFlushedOnEveryNodeHealsInOneTurnWithoutASecondSpend() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, true);
        String run = "flush-" + System.nanoTime();
        onLoop(loop, () -> all(turn(store, run + "-warm", CLIENTS)));
        primaries.forEach(p -> RedisCli.run(p, "SCRIPT", "FLUSH"));
        long evals = calls("eval");

        List<List<Decision>> first = onLoop(loop, () -> all(turn(store, run, CLIENTS)));
        List<List<Decision>> second = onLoop(loop, () -> all(turn(store, run, CLIENTS)));

        assertThat(first).as("every check answered after NOSCRIPT, each bucket spent once")
                .allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(4L));
        assertThat(second).allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(3L));
        assertThat(calls("eval") - evals).as("calls sent again with the script's text, at most one per node")
                .isBetween(1L, (long) primaries.size());
    }

    @Test
    void aStaleMapOfSlotsCostsTheGroupingNeverAnAnswerOrASecondSpend() throws Exception {
        Context loop = vertx.getOrCreateContext();
        SlotOwners stale = everythingOnOneNode();
        RedisCounterStore store = new RedisCounterStore(redis, true, stale);
        String run = "stale-" + System.nanoTime();
        long failed = failedCalls("evalsha");

        // one call for all, routed by the first client's keys: the node finds keys it does not serve
        List<List<Decision>> first = onLoop(loop, () -> all(turn(store, run, CLIENTS)));
        String someKey = bucket(run, "client-0").key();
        await().atMost(Duration.ofSeconds(5)).until(() -> !NOWHERE.equals(stale.ownerOf(someKey)));
        long evalshas = calls("evalsha");
        List<List<Decision>> second = onLoop(loop, () -> all(turn(store, run, CLIENTS)));

        assertThat(failedCalls("evalsha") - failed).as("the call for all, refused by its node").isEqualTo(1);
        assertThat(first).as("every check answered one by one, each bucket spent once")
                .allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(4L));
        assertThat(second).allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(3L));
        assertThat("redis://" + stale.ownerOf(someKey)).as("the map asked for again names the real owner")
                .isEqualTo(cluster.ownerOf(someKey));
        assertThat(calls("evalsha") - evalshas).as("with the map fresh, one call per node")
                .isEqualTo(primaries.size());
    }

    @Test
    void afterAStaleMapEachCheckSentAloneIsAnsweredByItsOwnCall() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, everythingOnOneNode());
        String run = "alone-" + System.nanoTime();
        // the last client's key holds a hash (a rule whose algorithm changed): read alone, it counts as absent and
        // the check starts it afresh; in the call for all, a key of another node comes first and the node refuses
        // the whole call
        String other = bucket(run, "client-" + (CLIENTS - 1)).key();
        RedisCli.run(RedisCli.port(cluster.ownerOf(other)), "HSET", other, "not", "a bucket");
        long failed = failedCalls("evalsha");

        List<Future<List<Decision>>> checks = onLoop(loop, () -> {
            List<Future<List<Decision>>> turn = turn(store, run, CLIENTS);
            return Future.join(new ArrayList<>(turn)).transform(settled -> Future.succeededFuture(turn));
        });

        assertThat(failedCalls("evalsha") - failed).as("the call for all, refused by its node").isEqualTo(1);
        assertThat(checks).as("every check answered by its own call, each bucket spent once")
                .allSatisfy(check -> assertThat(check.result()).extracting(Decision::remaining)
                        .containsExactly(4L));
    }

    @Test
    void aSlotMovingToAnotherNodeCostsNoAnswerNoSecondSpendAndNoKeyAheadOfItsMove() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, true);
        String run = "moving-" + System.nanoTime();
        // six buckets of one client (one slot, six rules), checked after the other clients' in each turn
        List<Bucket> mover = IntStream.range(0, 6)
                .mapToObj(i -> new Bucket(CounterKeys.key("cluster." + run + "-rule" + i, "mover"), FIVE))
                .toList();
        List<String> keys = mover.stream().map(Bucket::key).toList();
        int slot = cluster.slotOf(keys.get(0));
        String from = cluster.ownerOf(keys.get(0));
        String to = cluster.primaries().stream().filter(p -> !p.equals(from)).findFirst().orElseThrow();
        List<List<Decision>> before = onLoop(loop, () -> all(turnWith(store, run, mover)));

        cluster.startMoving(slot, from, to);
        cluster.moveKeys(from, to, keys.subList(0, 3)); // half moved: the source answers ASK for those
        List<Future<List<Decision>>> fired = new CopyOnWriteArrayList<>();
        CompletableFuture<List<List<Decision>>> during = startOnLoop(loop, () -> {
            fired.addAll(turnWith(store, run, mover));
            return all(fired);
        });
        // the other clients' checks are in, the mover's may wait (TRYAGAIN: its keys are on both nodes now)
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fired.stream().filter(Future::isComplete).count() >= CLIENTS);
        // MIGRATE refuses a key the target already has: no check may have written one there ahead of its move
        cluster.moveKeys(from, to, keys.subList(3, 6));
        cluster.finishMoving(slot, to); // the gateway's map and the client's still say the source
        List<List<Decision>> duringAnswers = during.get(20, TimeUnit.SECONDS);
        List<List<Decision>> after = onLoop(loop, () -> all(turnWith(store, run, mover)));

        assertThat(before).allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(4L));
        assertThat(duringAnswers).as("mid-move: every check answered, each bucket spent once")
                .allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(3L));
        assertThat(after).as("moved: every check answered, each bucket spent once")
                .allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(2L));
        assertThat(cluster.ownerOf(keys.get(0))).isEqualTo(to);
        keys.forEach(k -> assertThat(RedisCli.run(RedisCli.port(to), "EXISTS", k)).as(k).isEqualTo("1"));
    }

    /** One check each for {@code CLIENTS} clients of {@code run} and for each of {@code more}, asked now. */
    private static List<Future<List<Decision>>> turnWith(RedisCounterStore store, String run, List<Bucket> more) {
        List<Future<List<Decision>>> checks = new ArrayList<>(turn(store, run, CLIENTS));
        more.forEach(b -> checks.add(store.check(List.of(b))));
        return checks;
    }

    /** One check each for {@code clients} clients of {@code run}, asked now (on the caller's loop). */
    private static List<Future<List<Decision>>> turn(RedisCounterStore store, String run, int clients) {
        return IntStream.range(0, clients).mapToObj(i -> store.check(List.of(bucket(run, "client-" + i)))).toList();
    }

    /** A stale map of slots: every slot on {@link #NOWHERE}, until the store asks for the map again. */
    private static SlotOwners everythingOnOneNode() {
        String[] owners = new String[16_384];
        Arrays.fill(owners, NOWHERE);
        return new SlotOwners(redis, owners);
    }

    private static Bucket bucket(String run, String client) {
        return new Bucket(CounterKeys.key("cluster." + run, client), FIVE);
    }

    private static long calls(String command) {
        return primaries.stream().mapToLong(p -> RedisCli.calls(p, command)).sum();
    }

    private static long failedCalls(String command) {
        return primaries.stream().mapToLong(p -> RedisCli.failedCalls(p, command)).sum();
    }

    private static long sum(String field) {
        return primaries.stream().mapToLong(p -> RedisCli.info(p, field)).sum();
    }
}
