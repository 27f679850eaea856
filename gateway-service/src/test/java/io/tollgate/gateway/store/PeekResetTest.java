package io.tollgate.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Peek;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The Redis store's {@code peek} and {@code reset} against a real Redis, on an event loop (the pinned
 * connection) and off one (the pooled client): a peek reads what a bucket holds and writes nothing; a reset
 * makes it full again and says whether there was one.
 */
class PeekResetTest extends OnLoopTestBase {

    /** Slow enough that nothing refills while a test runs. */
    private static final Policy FIVE_AN_HOUR = new Policy(Algorithm.TOKEN_BUCKET, 5, 3_600_000, 5);
    private static final List<Policy> EVERY_ALGORITHM = List.of(FIVE_AN_HOUR,
            new Policy(Algorithm.GCRA, 5, 3_600_000, 5), new Policy(Algorithm.SLIDING_WINDOW, 5, 3_600_000, 5),
            new Policy(Algorithm.FIXED_WINDOW, 5, 3_600_000, 5));

    @Test
    void aPeekReadsWhatEachAlgorithmsBucketHoldsAndChangesNothing() throws Exception {
        RedisCounterStore store = new RedisCounterStore(redis, true, false);
        Context loop = vertx.getOrCreateContext();
        String run = "peek-" + System.nanoTime();
        for (Policy policy : EVERY_ALGORITHM) {
            Bucket bucket = bucket(policy.algorithm().wireName(), run, policy);
            Peek absent = onLoop(loop, () -> store.peek(bucket));
            assertThat(absent.exists()).isFalse();
            assertThat(absent.remaining()).isEqualTo(5);
            for (int i = 0; i < 2; i++) {
                onLoop(loop, () -> store.check(List.of(bucket)));
            }
            byte[] value = raw(bucket.key());
            String expiresAt = RedisCli.run(node.port(), "PEXPIRETIME", bucket.key());
            long writes = writes();

            Peek onLoop = onLoop(loop, () -> store.peek(bucket));
            Peek offLoop = get(store.peek(bucket));

            assertThat(List.of(onLoop, offLoop)).as(policy.algorithm().wireName()).allSatisfy(peek -> {
                assertThat(peek.exists()).isTrue();
                assertThat(peek.remaining()).isEqualTo(3);
                assertThat(peek.resetMs()).isPositive().isLessThanOrEqualTo(2 * 3_600_000);
            });
            assertThat(raw(bucket.key())).isEqualTo(value);
            assertThat(RedisCli.run(node.port(), "PEXPIRETIME", bucket.key())).isEqualTo(expiresAt);
            assertThat(writes()).as("writes by two peeks").isEqualTo(writes);
            List<Decision> next = onLoop(loop, () -> store.check(List.of(bucket)));
            assertThat(next.get(0).remaining()).as("the check after the peeks").isEqualTo(2);
        }
    }

    @Test
    void aResetBucketIsFullAgainAndAResetSaysWhetherThereWasOne() throws Exception {
        RedisCounterStore store = new RedisCounterStore(redis, true, false);
        Context loop = vertx.getOrCreateContext();
        String run = "reset-" + System.nanoTime();
        Bucket bucket = bucket("orders.write", run, FIVE_AN_HOUR);
        Bucket other = bucket("orders.read", run, FIVE_AN_HOUR);
        for (int i = 0; i < 5; i++) {
            onLoop(loop, () -> store.check(List.of(bucket, other)));
        }
        assertThat(onLoop(loop, () -> store.check(List.of(bucket))).get(0).allowed()).isFalse();

        assertThat(onLoop(loop, () -> store.reset(bucket))).isTrue();

        assertThat(onLoop(loop, () -> store.peek(bucket))).isEqualTo(new Peek(false, 5, 0));
        assertThat(onLoop(loop, () -> store.reset(bucket))).as("nothing left to reset").isFalse();
        assertThat(onLoop(loop, () -> store.peek(other)).remaining()).as("the client's other bucket").isZero();
        assertThat(onLoop(loop, () -> store.check(List.of(bucket))).get(0)).isEqualTo(new Decision(true, 4, 0,
                720_000));
        assertThat(get(store.reset(bucket))).as("off a loop").isTrue();
    }

    @Test
    void aFlushedScriptCacheIsHealedForAPeek() throws Exception {
        RedisCounterStore store = new RedisCounterStore(redis, true, false);
        Context loop = vertx.getOrCreateContext();
        Bucket bucket = bucket("flushed", "peek-" + System.nanoTime(), FIVE_AN_HOUR);
        onLoop(loop, () -> store.check(List.of(bucket)));
        onLoop(loop, () -> store.peek(bucket));
        RedisCli.run(node.port(), "SCRIPT", "FLUSH");
        long evals = RedisCli.calls(node.port(), "eval");

        List<Peek> peeks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peeks.add(onLoop(loop, () -> store.peek(bucket)));
        }

        assertThat(peeks).extracting(Peek::remaining).containsExactly(4L, 4L, 4L);
        assertThat(RedisCli.calls(node.port(), "eval") - evals).as("the text sent once").isEqualTo(1);
    }

    @Test
    void theInMemoryStorePeeksAndResetsAsTheRedisStoreDoes() throws Exception {
        CounterStore memory = new InMemoryCounterStore(Clock.systemUTC());
        CounterStore store = new RedisCounterStore(redis, false, false);
        String run = "memory-" + System.nanoTime();
        for (Policy policy : EVERY_ALGORITHM) {
            Bucket bucket = bucket(policy.algorithm().wireName(), run, policy);

            assertThat(story(memory, bucket)).as(policy.algorithm().wireName()).isEqualTo(story(store, bucket))
                    .containsExactly("absent, 5 held", "stored, 3 held", "reset: true", "reset: false",
                            "absent, 5 held");
        }
    }

    /** Peek, check twice, peek, reset twice, peek: what each peek and reset said (reset_ms is each clock's). */
    private static List<String> story(CounterStore limiter, Bucket bucket) throws Exception {
        List<String> said = new ArrayList<>();
        said.add(describe(get(limiter.peek(bucket))));
        get(limiter.check(List.of(bucket)));
        get(limiter.check(List.of(bucket)));
        said.add(describe(get(limiter.peek(bucket))));
        said.add("reset: " + get(limiter.reset(bucket)));
        said.add("reset: " + get(limiter.reset(bucket)));
        said.add(describe(get(limiter.peek(bucket))));
        return said;
    }

    private static String describe(Peek peek) {
        return (peek.exists() ? "stored, " : "absent, ") + peek.remaining() + " held";
    }

    private static <T> T get(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static Bucket bucket(String rule, String client, Policy policy) {
        return new Bucket(CounterKeys.key(rule, client), policy);
    }

    /** The stored value's bytes, exactly; null when absent. */
    private static byte[] raw(String key) throws Exception {
        Response value = get(redis.send(Request.cmd(Command.GET).arg(key)));
        return value == null ? null : value.toBytes();
    }

    /** Redis's count of changes to its data: every write adds to it. */
    private static long writes() {
        return RedisCli.info(node.port(), "rdb_changes_since_last_save");
    }
}
