package io.tollgate.gateway.limiter.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

/**
 * The time limit alone, with a store whose answers the test gives or withholds (pure timing logic; a real
 * stalled Redis is StoreFailureTest's): on an event loop, the calls in flight share one timer per loop.
 */
class GuardedStoreTest {

    private static final long TIMEOUT_MS = 60;
    private static final long UNANSWERED_MS = 1_000;
    private static final List<Bucket> BUCKETS = List.of(new Bucket("k", new Policy(Algorithm.TOKEN_BUCKET, 1, 1000, 1)));
    private static final List<Decision> ALLOWED = List.of(new Decision(true, 0, 0, 0));

    private final Vertx vertx = Vertx.vertx();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ConcurrentLinkedQueue<Promise<List<Decision>>> asked = new ConcurrentLinkedQueue<>();
    private final CircuitBreaker breaker = new CircuitBreaker(10, 0.6, TimeUnit.SECONDS.toNanos(60), System::nanoTime);
    private final GuardedStore store = new GuardedStore(buckets -> {
        Promise<List<Decision>> promise = Promise.promise();
        asked.add(promise);
        return promise.future();
    }, vertx, Duration.ofMillis(TIMEOUT_MS), Duration.ofMillis(UNANSWERED_MS), breaker, registry);

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
        assertThat(registry.get("tollgate.store.errors").tag("kind", "timeout").counter().count()).isEqualTo(5);
        assertThat(registry.get("tollgate.store.latency").timer().count()).isEqualTo(5);
        // an answer after the timeout changes no decision, but is read: timed, and counted as late
        loop.runOnContext(v -> promises.get(1).complete(ALLOWED));
        await().atMost(Duration.ofSeconds(2)).until(() -> registry.get("tollgate.store.late.answers").counter()
                .count() == 1);
        assertThat(registry.get("tollgate.store.latency").timer().count()).isEqualTo(6);
        assertThat(((GuardedStore.TimedOut) calls.get(1).failure()).late().result()).isEqualTo(ALLOWED);
    }

    @Test
    void aCallAskedWhileAnEarlierOneWaitsToCountAsUnansweredTimesOutOnItsOwnTime() throws Exception {
        Context loop = vertx.getOrCreateContext();
        Timed first = onLoop(loop, 1, 0).get(0);
        await().atMost(Duration.ofSeconds(2)).until(first.done::isDone);
        Timed second = onLoop(loop, 1, 0).get(0);
        await().atMost(Duration.ofSeconds(2)).until(second.done::isDone);
        assertThat(second.failure()).isInstanceOf(GuardedStore.TimedOut.class);
        assertThat(second.elapsedMs()).as("its own timeout, not the first one's unanswered bound")
                .isBetween(TIMEOUT_MS, TIMEOUT_MS + 250);
    }

    @Test
    void aSlowStoreIsNotADeadOneLateAnswersKeepTheBreakerClosed() throws Exception {
        Context loop = vertx.getOrCreateContext();
        List<Timed> calls = onLoop(loop, 20, 0);
        await().atMost(Duration.ofSeconds(2)).until(() -> calls.stream().allMatch(t -> t.done.isDone()));
        // every call timed out; each is answered late, well before it would count as unanswered
        List<Promise<List<Decision>>> promises = new ArrayList<>(asked);
        loop.runOnContext(v -> promises.forEach(p -> p.complete(ALLOWED)));
        await().atMost(Duration.ofSeconds(2)).until(() -> registry.get("tollgate.store.late.answers").counter()
                .count() == 20);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.allowsCall()).isTrue();
        assertThat(registry.get("tollgate.store.errors").tag("kind", "timeout").counter().count()).isEqualTo(20);
        assertThat(registry.get("tollgate.store.errors").tag("kind", "unanswered").counter().count()).isZero();
    }

    @Test
    void callsUnansweredForTheBoundOpenTheBreakerAndALateAnswerClosesIt() throws Exception {
        Context loop = vertx.getOrCreateContext();
        List<Timed> calls = onLoop(loop, 10, 0);
        long asked = System.nanoTime();
        await().atMost(Duration.ofSeconds(3)).until(() -> breaker.state() == CircuitBreaker.State.OPEN);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked)).as("opened once unanswered")
                .isGreaterThanOrEqualTo(UNANSWERED_MS - TIMEOUT_MS);
        assertThat(calls).allMatch(t -> t.done.isDone());
        assertThat(registry.get("tollgate.store.errors").tag("kind", "unanswered").counter().count()).isEqualTo(10);
        Promise<List<Decision>> first = this.asked.peek();
        loop.runOnContext(v -> first.complete(ALLOWED));
        await().atMost(Duration.ofSeconds(2)).until(() -> breaker.state() == CircuitBreaker.State.CLOSED);
    }

    /**
     * The loop falls behind: while it runs a long handler, the store's answer arrives on a socket of that loop
     * and the call's timeout passes. The answer is read before the call times out.
     */
    @Test
    void anAnswerWaitingInTheLoopsOwnQueueWhenTheTimerFiresIsUsed() throws Exception {
        Vertx servers = Vertx.vertx();
        try {
            // answers each line after 20 ms, within the timeout; "busy" at once
            AtomicBoolean answerSent = new AtomicBoolean();
            AtomicBoolean busySent = new AtomicBoolean();
            NetServer echo = servers.createNetServer().connectHandler(socket -> socket.handler(data -> {
                if (data.toString().startsWith("busy")) {
                    socket.write(data).onSuccess(v -> busySent.set(true));
                } else {
                    servers.setTimer(TIMEOUT_MS / 3, t -> socket.write(data).onSuccess(v -> answerSent.set(true)));
                }
            }));
            int port = echo.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS)
                    .actualPort();
            Context loop = vertx.getOrCreateContext();
            CompletableFuture<NetSocket[]> connected = new CompletableFuture<>();
            loop.runOnContext(v -> {
                NetClient client = vertx.createNetClient();
                Future.all(client.connect(port, "127.0.0.1"), client.connect(port, "127.0.0.1"))
                        .onSuccess(both -> connected.complete(new NetSocket[]{both.resultAt(0), both.resultAt(1)}))
                        .onFailure(connected::completeExceptionally);
            });
            NetSocket[] sockets = connected.get(5, TimeUnit.SECONDS);
            NetSocket store = sockets[0];
            NetSocket busy = sockets[1];
            ConcurrentLinkedQueue<Promise<List<Decision>>> waiting = new ConcurrentLinkedQueue<>();
            store.handler(data -> waiting.poll().complete(ALLOWED));
            // the loop's own long task, run while reading a socket: the answer arrives meanwhile, and the timeout
            // passes
            busy.handler(data -> spinUntil(answerSent::get, 3 * TIMEOUT_MS));
            GuardedStore overSockets = new GuardedStore(buckets -> {
                Promise<List<Decision>> promise = Promise.promise();
                waiting.add(promise);
                store.write("check\n");
                return promise.future();
            }, vertx, Duration.ofMillis(TIMEOUT_MS), Duration.ofMillis(UNANSWERED_MS), breaker, registry);
            CompletableFuture<Timed> call = new CompletableFuture<>();
            loop.runOnContext(v -> {
                // the busy socket's data waits unread while the loop runs this task; the check starts after it
                busy.write("busy\n");
                spinUntil(busySent::get, 0);
                call.complete(new Timed(System.nanoTime(), overSockets.check(BUCKETS)));
            });
            Timed timed = call.get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(2)).until(timed.done::isDone);
            assertThat(timed.elapsedMs()).as("the loop was busy past the timeout").isGreaterThanOrEqualTo(TIMEOUT_MS);
            assertThat(timed.done.get()).as("answered by the store, not timed out").isEqualTo(ALLOWED);
        } finally {
            servers.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    /** Keeps the calling thread busy for at least {@code ms} and until {@code done} (at most 5 s). */
    private static void spinUntil(BooleanSupplier done, long ms) {
        long start = System.nanoTime();
        long least = start + TimeUnit.MILLISECONDS.toNanos(ms);
        long most = start + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - most < 0 && (System.nanoTime() - least < 0 || !done.getAsBoolean())) {
            Thread.onSpinWait();
        }
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
