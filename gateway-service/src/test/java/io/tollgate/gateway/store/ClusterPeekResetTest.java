package io.tollgate.gateway.store;

import static io.tollgate.gateway.store.OnLoopTestBase.onLoop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Peek;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;

/**
 * The store's {@code peek} and {@code reset} on a real Redis Cluster (three primaries): each goes to the node
 * that serves its key's slot, whatever the gateway's map of slots says, and keeps doing so while the slot
 * moves; a peek writes nothing on any node.
 */
class ClusterPeekResetTest extends OnClusterTestBase {

    private static final Policy FIVE = new Policy(Algorithm.TOKEN_BUCKET, 5, 3_600_000, 5);
    private static final int CLIENTS = 30;

    @Test
    void peeksAndResetsOfClientsOnEveryNodeAnswerFromTheirOwnNode() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, true);
        List<Bucket> buckets = buckets("spread-" + System.nanoTime());
        assertThat(buckets.stream().map(b -> cluster.ownerOf(b.key())).distinct()).hasSameSizeAs(primaries);
        // client i spends i % 3 of its five, so what each peek reads is its own bucket's
        for (int i = 0; i < CLIENTS; i++) {
            for (int spent = 0; spent < i % 3; spent++) {
                Bucket bucket = buckets.get(i);
                onLoop(loop, () -> store.check(List.of(bucket)));
            }
        }
        long writes = writes();

        List<Peek> peeks = onLoop(loop, () -> all(buckets, store::peek));

        assertThat(writes()).as("writes on the primaries by %d peeks", CLIENTS).isEqualTo(writes);
        for (int i = 0; i < CLIENTS; i++) {
            assertThat(peeks.get(i).exists()).as("client %d", i).isEqualTo(i % 3 > 0);
            assertThat(peeks.get(i).remaining()).as("client %d", i).isEqualTo(5 - i % 3);
        }
        List<Boolean> resets = onLoop(loop, () -> all(buckets, store::reset));
        assertThat(resets).containsExactlyElementsOf(IntStream.range(0, CLIENTS).mapToObj(i -> i % 3 > 0).toList());
        assertThat(onLoop(loop, () -> all(buckets, store::peek)))
                .allSatisfy(peek -> assertThat(peek).isEqualTo(new Peek(false, 5, 0)));
    }

    @Test
    void aStaleMapOfSlotsAndAScriptFlushedOnEveryNodeCostNoAnswer() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String[] nowhere = new String[16_384];
        Arrays.fill(nowhere, "127.0.0.1:1");
        RedisCounterStore store = new RedisCounterStore(redis, true, new SlotOwners(redis, nowhere));
        List<Bucket> buckets = buckets("stale-" + System.nanoTime());
        onLoop(loop, () -> all(buckets, b -> store.check(List.of(b))));
        primaries.forEach(p -> RedisCli.run(p, "SCRIPT", "FLUSH"));
        long evals = primaries.stream().mapToLong(p -> RedisCli.calls(p, "eval")).sum();

        // one by one: peeks asked together would each meet NOSCRIPT (they are not coalesced as checks are)
        List<Peek> peeks = onLoop(loop, () -> sequentially(buckets, store::peek));

        assertThat(peeks).allSatisfy(peek -> assertThat(peek).extracting(Peek::exists, Peek::remaining)
                .containsExactly(true, 4L));
        assertThat(primaries.stream().mapToLong(p -> RedisCli.calls(p, "eval")).sum() - evals)
                .as("the peek script's text sent once per node").isEqualTo(primaries.size());
        assertThat(onLoop(loop, () -> all(buckets, store::reset))).containsOnly(true);
    }

    @Test
    void aBucketWhoseSlotIsMovingIsPeekedAndResetWhereverItIsNow() throws Exception {
        Context loop = vertx.getOrCreateContext();
        RedisCounterStore store = new RedisCounterStore(redis, true, true);
        String run = "moving-" + System.nanoTime();
        // four buckets of one client: one slot
        List<Bucket> mover = IntStream.range(0, 4)
                .mapToObj(i -> new Bucket(CounterKeys.key(run + "-rule" + i, "mover"), FIVE))
                .toList();
        List<String> keys = mover.stream().map(Bucket::key).toList();
        int slot = cluster.slotOf(keys.get(0));
        String from = cluster.ownerOf(keys.get(0));
        String to = cluster.primaries().stream().filter(p -> !p.equals(from)).findFirst().orElseThrow();
        onLoop(loop, () -> store.check(mover));

        cluster.startMoving(slot, from, to);
        cluster.moveKeys(from, to, keys.subList(0, 2)); // half moved: the source answers ASK for those
        List<Peek> midMove = onLoop(loop, () -> all(mover, store::peek));
        boolean resetMidMove = onLoop(loop, () -> store.reset(mover.get(0)));
        cluster.moveKeys(from, to, keys.subList(2, 4));
        cluster.finishMoving(slot, to); // the client's map still says the source: MOVED
        List<Peek> moved = onLoop(loop, () -> all(mover, store::peek));

        assertThat(midMove).as("peeked on either node mid-move").extracting(Peek::exists, Peek::remaining)
                .containsOnly(tuple(true, 4L));
        assertThat(resetMidMove).as("the moved bucket, reset on its new node").isTrue();
        assertThat(moved).extracting(Peek::exists, Peek::remaining).containsExactly(tuple(false, 5L), tuple(true, 4L),
                tuple(true, 4L), tuple(true, 4L));
        assertThat(RedisCli.run(RedisCli.port(to), "EXISTS", keys.get(1))).isEqualTo("1");
    }

    /** What {@code each} answers for every one of {@code buckets}, all asked at once. */
    private static <T> Future<List<T>> all(List<Bucket> buckets, Function<Bucket, Future<T>> each) {
        return Future.all(buckets.stream().map(each).toList()).map(answers -> answers.<T>list());
    }

    /** What {@code each} answers for {@code buckets}, one after the other: each answered before the next is asked. */
    private static <T> Future<List<T>> sequentially(List<Bucket> buckets, Function<Bucket, Future<T>> each) {
        Future<List<T>> done = Future.succeededFuture(new ArrayList<>());
        for (Bucket bucket : buckets) {
            done = done.compose(list -> each.apply(bucket).map(answer -> {
                list.add(answer);
                return list;
            }));
        }
        return done;
    }

    private static List<Bucket> buckets(String run) {
        return IntStream.range(0, CLIENTS)
                .mapToObj(i -> new Bucket(CounterKeys.key("cluster." + run, "client-" + i), FIVE))
                .toList();
    }

    /** Changes to the data of every primary: every write adds to them. */
    private static long writes() {
        return primaries.stream().mapToLong(p -> RedisCli.info(p, "rdb_changes_since_last_save")).sum();
    }
}
