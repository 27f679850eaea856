package io.tollgate.gateway.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * The time limit alone, with a store whose answers the test gives or withholds (pure timing logic; a real
 * stalled Redis is StoreFailureTest's): on an event loop, the calls in flight share one timer per loop.
 */
class GuardedStoreTest {

    private static final long TIMEOUT_MS = 60;
    private static final List<Bucket> BUCKETS = List.of(new Bucket("k", new Policy(Algorithm.TOKEN_BUCKET, 1, 1000, 1)));
    private static final List<Decision> ALLOWED = List.of(new Decision(true, 0, 0, 0));

    private final Vertx vertx = Vertx.vertx();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ConcurrentLinkedQueue<Promise<List<Decision>>> asked = new ConcurrentLinkedQueue<>();
    private final GuardedStore store = new GuardedStore(buckets -> {
        Promise<List<Decision>> promise = Promise.promise();
        asked.add(promise);
        return promise.future();
    }, vertx, Duration.ofMillis(TIMEOUT_MS), new CircuitBreaker(1000, 1.0, TimeUnit.SECONDS.toNanos(1), System::nanoTime),
            registry);

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void unansweredCallsOnOneLoopEachFailAfterTheTimeoutFromTheirOwnStart() throws Exception {
        Context loop = vertx.getOrCreateContext();
        List<Timed> first = onLoop(loop, 20, 0);
        long gapMs = TIMEOUT_MS / 2;
        List<Timed> second = onLoop(loop, 20, gapMs); // while the first twenty are in flight

        List<Timed> all = new ArrayList<>(first);
        all.addAll(second);
        await().atMost(Duration.ofSeconds(2)).until(() -> all.stream().allMatch(t -> t.done.isDone()));
        for (Timed t : all) {
            assertThat(t.failure()).isInstanceOf(GuardedStore.StoreUnavailable.class);
            assertThat(t.elapsedMs()).as("failed after the timeout, counted from its own start")
                    .isBetween(TIMEOUT_MS, TIMEOUT_MS + 250);
        }
        assertThat(second.get(0).endNanos - first.get(0).endNanos).as("the later calls time out later")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(gapMs) / 2);
        assertThat(registry.get("tollgate.store.errors").tag("kind", "timeout").counter().count()).isEqualTo(40);
    }

    @Test
    void answeredCallsKeepTheirAnswerAndOnlyTheSilentOnesTimeOut() throws Exception {
        Context loop = vertx.getOrCreateContext();
        List<Timed> calls = onLoop(loop, 10, 0);
        List<Promise<List<Decision>>> promises = new ArrayList<>(asked);
        CompletableFuture<Void> answered = new CompletableFuture<>();
        loop.runOnContext(v -> {
            for (int i = 0; i < promises.size(); i += 2) {
                promises.get(i).complete(ALLOWED);
            }
            answered.complete(null);
        });
        answered.get(1, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(2)).until(() -> calls.stream().allMatch(t -> t.done.isDone()));
        for (int i = 0; i < calls.size(); i++) {
            if (i % 2 == 0) {
                assertThat(calls.get(i).done.get()).as("call %d", i).isEqualTo(ALLOWED);
            } else {
                assertThat(calls.get(i).failure()).as("call %d", i).isInstanceOf(GuardedStore.StoreUnavailable.class);
            }
        }
        // an answer after the timeout changes nothing
        loop.runOnContext(v -> promises.get(1).complete(ALLOWED));
        assertThat(registry.get("tollgate.store.errors").tag("kind", "timeout").counter().count()).isEqualTo(5);
        assertThat(registry.get("tollgate.store.latency").timer().count()).isEqualTo(5);
    }

    @Test
    void offAnEventLoopEachCallHasItsOwnTimer() throws Exception {
        Timed call = new Timed(System.nanoTime(), store.check(BUCKETS));
        await().atMost(Duration.ofSeconds(2)).until(call.done::isDone);
        assertThat(call.failure()).isInstanceOf(GuardedStore.StoreUnavailable.class);
        assertThat(call.elapsedMs()).isBetween(TIMEOUT_MS, TIMEOUT_MS + 250);
    }

    /** {@code count} checks asked on {@code loop}, as the gateway asks them, {@code afterMs} from now. */
    private List<Timed> onLoop(Context loop, int count, long afterMs) throws Exception {
        CompletableFuture<List<Timed>> started = new CompletableFuture<>();
        Runnable ask = () -> {
            List<Timed> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                out.add(new Timed(System.nanoTime(), store.check(BUCKETS)));
            }
            started.complete(out);
        };
        loop.runOnContext(v -> {
            if (afterMs == 0) {
                ask.run();
            } else {
                vertx.setTimer(afterMs, t -> ask.run());
            }
        });
        return started.get(2, TimeUnit.SECONDS);
    }

    private static final class Timed {

        final long startNanos;
        final CompletableFuture<List<Decision>> done = new CompletableFuture<>();
        volatile long endNanos;

        Timed(long startNanos, Future<List<Decision>> check) {
            this.startNanos = startNanos;
            check.onComplete(result -> {
                endNanos = System.nanoTime();
                if (result.succeeded()) {
                    done.complete(result.result());
                } else {
                    done.completeExceptionally(result.cause());
                }
            });
        }

        long elapsedMs() {
            return TimeUnit.NANOSECONDS.toMillis(endNanos - startNanos);
        }

        Throwable failure() {
            return done.handle((ok, err) -> err).join();
        }
    }
}
