package io.tollgate.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CheckCall;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * The store with coalescing against a real Redis: the checks one loop turn asks for are ONE call of the
 * script, and each still gets its own decision, in order.
 */
class CoalescedChecksTest extends OnLoopTestBase {

    private static final Policy FIVE = new Policy(Algorithm.TOKEN_BUCKET, 5, 3_600_000, 5);
    private static final Policy MANY = new Policy(Algorithm.TOKEN_BUCKET, 1_000, 3_600_000, 1_000);

    @Test
    void theChecksOfOneLoopTurnAreOneScriptCallAndEachIsDecidedOnItsOwnInOrder() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "turn-" + System.nanoTime();
        RedisCounterStore store = warmStore(loop, run);
        long scriptCalls = scriptCalls();
        long gets = RedisCli.calls(node.port(), "get");

        // 10 checks of one client on a bucket of 5, interleaved with 10 of distinct clients, two buckets each
        List<List<Decision>> decisions = onLoop(loop, () -> all(IntStream.range(0, 20).mapToObj(i -> i % 2 == 0
                ? store.check(List.of(bucket("five", run, FIVE)))
                : store.check(List.of(bucket("a", run + "-" + i, MANY), bucket("b", run + "-" + i, FIVE))))
                .toList()));

        assertThat(scriptCalls() - scriptCalls).as("script calls for 20 checks asked in one loop turn").isEqualTo(1);
        assertThat(RedisCli.calls(node.port(), "get") - gets).as("buckets read").isEqualTo(10 + 2 * 10);
        List<Decision> sameClient = IntStream.range(0, 20).filter(i -> i % 2 == 0).mapToObj(i -> decisions.get(i)
                .get(0)).toList();
        assertThat(sameClient).extracting(Decision::allowed).containsExactly(true, true, true, true, true, false,
                false, false, false, false);
        assertThat(sameClient.subList(0, 5)).extracting(Decision::remaining).containsExactly(4L, 3L, 2L, 1L, 0L);
        IntStream.range(0, 20).filter(i -> i % 2 == 1).forEach(i -> assertThat(decisions.get(i))
                .as("client %d's two buckets", i).extracting(Decision::remaining).containsExactly(999L, 4L));
    }

    @Test
    void moreChecksInOneTurnThanABatchHoldsGoInAsFewCallsAsFit() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "many-" + System.nanoTime();
        RedisCounterStore store = warmStore(loop, run);
        long scriptCalls = scriptCalls();
        int checks = 2 * CoalescedChecks.MAX_BATCH + 1;

        List<List<Decision>> decisions = onLoop(loop, () -> all(IntStream.range(0, checks)
                .mapToObj(i -> store.check(List.of(bucket("x", run + "-" + i, FIVE)))).toList()));

        assertThat(decisions).hasSize(checks).allSatisfy(d -> assertThat(d.get(0).remaining()).isEqualTo(4));
        assertThat(scriptCalls() - scriptCalls).isEqualTo(3);
    }

    @Test
    void aSettlementRidesWithTheNextChecksOfItsLoopAheadOfThem() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "ride-" + System.nanoTime();
        // a ride long enough for a check 50 ms later on any machine
        RedisCounterStore store = new RedisCounterStore(redis, true, null, TimeUnit.SECONDS.toNanos(10));
        onLoop(loop, () -> store.check(List.of(bucket("warm", run, MANY))));
        Bucket five = bucket("five", run, FIVE);
        onLoop(loop, () -> store.check(List.of(five)));
        long scriptCalls = scriptCalls();

        // the settlement (its request used 3 more than its check spent), then a check in a later loop turn
        List<List<Decision>> decisions = onLoop(loop, () -> {
            Future<List<Decision>> settled = store.settle(List.of(five), List.of(3L));
            Promise<List<Decision>> checked = Promise.promise();
            vertx.setTimer(50, id -> store.check(List.of(five)).onComplete(checked));
            return all(List.of(settled, checked.future()));
        });

        assertThat(scriptCalls() - scriptCalls).as("script calls for a settlement and a later check").isEqualTo(1);
        assertThat(decisions.get(0).get(0).remaining()).as("after the settlement").isEqualTo(1);
        assertThat(decisions.get(1).get(0).remaining()).as("the check, after the settlement").isEqualTo(0);
    }

    @Test
    void aSettlementWithNoCheckToRideWithGoesOnItsOwnAndRidersBeyondABatchGoNext() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "alone-" + System.nanoTime();
        RedisCounterStore store = warmStore(loop, run);
        Bucket five = bucket("five", run, FIVE);
        onLoop(loop, () -> store.check(List.of(five)));
        long scriptCalls = scriptCalls();

        List<Decision> alone = onLoop(loop, () -> store.settle(List.of(five), List.of(-1L)));
        assertThat(alone.get(0).remaining()).as("given back").isEqualTo(5);
        assertThat(scriptCalls() - scriptCalls).isEqualTo(1);

        // more settlements than a call holds, then one check: the check takes as many as fit, the rest go after
        int settlements = CoalescedChecks.MAX_BATCH + 8;
        List<List<Decision>> decisions = onLoop(loop, () -> {
            List<Future<List<Decision>>> asked = new ArrayList<>();
            IntStream.range(0, settlements).forEach(i -> asked.add(store.settle(
                    List.of(bucket("x", run + "-" + i, FIVE)), List.of(2L))));
            asked.add(store.check(List.of(five)));
            return all(asked);
        });
        assertThat(decisions.subList(0, settlements)).as("each settlement of a fresh bucket of 5")
                .allSatisfy(d -> assertThat(d.get(0).remaining()).isEqualTo(3));
        assertThat(decisions.get(settlements).get(0).remaining()).isEqualTo(4);
        assertThat(scriptCalls() - scriptCalls).as("the lone settlement's call, then two").isEqualTo(3);
    }

    @Test
    void onAnIdleLoopARiderGoesAfterARideAndTheTickThenStops() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "tick-" + System.nanoTime();
        RedisCounterStore store = new RedisCounterStore(redis, true, null, TimeUnit.MILLISECONDS.toNanos(40));
        Bucket five = bucket("five", run, FIVE);
        onLoop(loop, () -> store.check(List.of(five)));
        assertThat(onLoop(loop, () -> Future.succeededFuture(store.ticking()))).as("before any rider").isFalse();

        long asked = System.nanoTime();
        List<Decision> alone = onLoop(loop, () -> store.settle(List.of(five), List.of(-1L)));
        long waited = System.nanoTime() - asked;

        assertThat(alone.get(0).remaining()).as("given back").isEqualTo(5);
        assertThat(waited).as("a rider with no check to ride with waits a ride")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> !onLoop(loop, () -> Future.succeededFuture(store.ticking())));
    }

    @Test
    void aFlushedScriptCacheIsHealedForTheWholeCall() throws Exception {
        Context loop = vertx.getOrCreateContext();
        String run = "flushed-" + System.nanoTime();
        RedisCounterStore store = warmStore(loop, run);
        RedisCli.run(node.port(), "SCRIPT", "FLUSH");
        long evals = RedisCli.calls(node.port(), "eval");

        List<List<Decision>> decisions = onLoop(loop, () -> all(IntStream.range(0, 10)
                .mapToObj(i -> store.check(List.of(bucket("x", run + "-" + i, FIVE)))).toList()));

        assertThat(decisions).allSatisfy(d -> assertThat(d.get(0).remaining()).isEqualTo(4));
        assertThat(RedisCli.calls(node.port(), "eval") - evals).as("the text sent once, for all ten").isEqualTo(1);
    }

    @Test
    void aCallThatFailsFailsEveryCheckInItAndTheNextTurnIsServed() throws Exception {
        RedisCounterStore store = new RedisCounterStore(redis, true, false);
        Context loop = vertx.getOrCreateContext();
        String run = "failing-" + System.nanoTime();
        // a limit above what the script takes (1e12): the script answers the whole call with an error
        Bucket broken = bucket("broken", run, new Policy(Algorithm.TOKEN_BUCKET, 10_000_000_000_000L, 3_600_000, 5));
        Bucket good = bucket("good", run, FIVE);

        assertThatThrownBy(() -> onLoop(loop, () -> bothFailed(store.check(List.of(good)),
                store.check(List.of(broken))))).hasMessageContaining("limit of key");

        List<Decision> next = onLoop(loop, () -> store.check(List.of(good)));
        assertThat(next.get(0).remaining())
                .as("served; the failed call wrote nothing (the script reads every bucket before it writes one), "
                        + "so the good check, checked first, was not spent")
                .isEqualTo(4);
    }

    @Test
    void checksThatCannotGoTogetherOrAReplyOfTheWrongShapeFailInsteadOfWaiting() throws Exception {
        // pure logic: the sender is a stand-in here, the tests above use Redis
        Context loop = vertx.getOrCreateContext();
        CheckCall one = CheckCall.of(List.of("rl:a:{x}"), List.of(FIVE), 1, OptionalLong.empty());
        CheckCall timed = CheckCall.of(List.of("rl:a:{y}"), List.of(FIVE), 1, OptionalLong.of(5));
        CoalescedChecks unsendable = sending(call -> Future.succeededFuture(List.of()));

        assertThatThrownBy(() -> onLoop(loop, () -> bothFailed(unsendable.check(one),
                unsendable.check(timed)))).hasMessageContaining("share now");

        CoalescedChecks shortReply = sending(call -> Future.succeededFuture(List.of(1L, 4L, 0L, 100L)));
        assertThatThrownBy(() -> onLoop(loop, () -> {
            Future<List<Decision>> first = shortReply.check(one);
            Future<List<Decision>> second = shortReply.check(one);
            return Future.join(first, second).transform(all -> first.succeeded() && second.failed()
                    ? Future.failedFuture(second.cause())
                    : Future.succeededFuture());
        })).hasMessageContaining("replied 0 integers");
    }

    private static Future<Void> bothFailed(Future<?> a, Future<?> b) {
        return Future.join(a, b).transform(all -> a.failed() && b.failed()
                ? Future.failedFuture(a.cause())
                : Future.succeededFuture());
    }

    /** Coalesced checks as on standalone Redis, sent by {@code send}. */
    private static CoalescedChecks sending(Function<CheckCall, Future<List<Long>>> send) {
        return new CoalescedChecks(CoalescedChecks.together(send), send);
    }

    /** A coalescing store whose loop has connected and loaded the script (one check of its own). */
    private static RedisCounterStore warmStore(Context loop, String run) throws Exception {
        RedisCounterStore store = new RedisCounterStore(redis, true, false);
        onLoop(loop, () -> store.check(List.of(bucket("warm", run, MANY))));
        return store;
    }

    private static Bucket bucket(String rule, String client, Policy policy) {
        return new Bucket(CounterKeys.key(rule, client), policy);
    }

    private static long scriptCalls() {
        return RedisCli.calls(node.port(), "evalsha") + RedisCli.calls(node.port(), "eval");
    }
}
