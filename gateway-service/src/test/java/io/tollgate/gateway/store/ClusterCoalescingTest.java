package io.tollgate.gateway.store;

import static io.tollgate.gateway.store.OnLoopTestBase.all;
import static io.tollgate.gateway.store.OnLoopTestBase.onLoop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.counter.testing.RedisCluster;
import io.tollgate.gateway.limiter.Bucket;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.CompositeFuture;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The store with coalescing on a real Redis Cluster (three primaries): the checks one loop turn asks for
 * stay one {@code EVALSHA} each (a script's keys must share a slot) but go as one pipelined write per node,
 * each decided on its own, in order; a flushed script cache heals without a double spend.
 */
class ClusterCoalescingTest {

    private static final Policy FIVE = new Policy(Algorithm.TOKEN_BUCKET, 5, 3_600_000, 5);
    private static final int CLIENTS = 30;

    private static RedisCluster cluster;
    private static Vertx vertx;
    private static Redis redis;
    private static List<Integer> primaries;

    @BeforeAll
    static void start() {
        cluster = new RedisCluster(3, 0);
        vertx = Vertx.vertx();
        RedisOptions options = new RedisOptions().setType(RedisClientType.CLUSTER);
        cluster.addresses().forEach(options::addConnectionString);
        redis = Redis.createClient(vertx, options);
        primaries = cluster.primaries().stream().map(RedisCli::port).toList();
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        cluster.close();
    }

    @Test
    void theChecksOfOneLoopTurnGoAsOneWritePerNodeEachDecidedInOrder() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisRateLimiter store = new RedisRateLimiter(redis, true, true);
        String run = "turn-" + System.nanoTime();
        onLoop(loop, () -> all(turn(store, run + "-warm", CLIENTS))); // connects; loads the script on each node
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

        assertThat(calls("evalsha") - evalshas).as("one EVALSHA per check").isEqualTo(CLIENTS + 10);
        long readsOfChecks = sum("total_reads_processed") - reads - looking;
        // 40 checks are two sends (at most 32 each), so at most two writes per node, where one per check was 40
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
        RedisRateLimiter store = new RedisRateLimiter(redis, true, true);
        String run = "flush-" + System.nanoTime();
        onLoop(loop, () -> all(turn(store, run + "-warm", CLIENTS)));
        primaries.forEach(p -> RedisCli.run(p, "SCRIPT", "FLUSH"));
        long evals = calls("eval");

        List<List<Decision>> first = onLoop(loop, () -> all(turn(store, run, CLIENTS)));
        List<List<Decision>> second = onLoop(loop, () -> all(turn(store, run, CLIENTS)));

        assertThat(first).as("every check answered after NOSCRIPT, each bucket spent once")
                .allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(4L));
        assertThat(second).allSatisfy(d -> assertThat(d).extracting(Decision::remaining).containsExactly(3L));
        assertThat(calls("eval") - evals).as("checks sent again with the script's text").isBetween(1L, (long) CLIENTS);
    }

    @Test
    void aStaleMapOfSlotsCostsTheGroupingNeverAnAnswer() throws Exception {
        Context loop = vertx.getOrCreateContext();
        PinnedConnections connections = new PinnedConnections(redis);
        String[] everythingOnOneNode = new String[16_384];
        Arrays.fill(everythingOnOneNode, "127.0.0.1:1");
        SlotOwners stale = new SlotOwners(redis, everythingOnOneNode);
        String run = "stale-" + System.nanoTime();
        List<String> keys = IntStream.range(0, CLIENTS).mapToObj(i -> "{" + run + "-" + i + "}").toList();
        List<Request> sets = keys.stream().map(k -> Request.cmd(Command.SET).arg(k).arg("v")).toList();

        List<Response> replies = onLoop(loop, () -> Future.all(new ArrayList<>(connections.sendByNode(sets, keys, stale)))
                .map(CompositeFuture::list));

        assertThat(replies).as("every SET answered although the batch spanning nodes was refused")
                .allSatisfy(r -> assertThat(r.toString()).isEqualTo("OK"));
        assertThat(keys.stream().filter(k -> cluster.ownerOf(k).equals(cluster.ownerOf(keys.get(0)))).count())
                .as("the keys really are on more than one node").isLessThan(CLIENTS);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !"127.0.0.1:1".equals(stale.ownerOf(keys.get(0))));
        assertThat(cluster.addresses()).as("the map asked for again names the real owner")
                .contains("redis://" + stale.ownerOf(keys.get(0)));
    }

    /** One check each for {@code clients} clients of {@code run}, asked now (on the caller's loop). */
    private static List<Future<List<Decision>>> turn(RedisRateLimiter store, String run, int clients) {
        return IntStream.range(0, clients).mapToObj(i -> store.check(List.of(bucket(run, "client-" + i)))).toList();
    }

    private static Bucket bucket(String run, String client) {
        return new Bucket(CounterKeys.key("cluster." + run, client), FIVE);
    }

    private static long calls(String command) {
        return primaries.stream().mapToLong(p -> RedisCli.calls(p, command)).sum();
    }

    private static long sum(String field) {
        return primaries.stream().mapToLong(p -> RedisCli.info(p, field)).sum();
    }
}
