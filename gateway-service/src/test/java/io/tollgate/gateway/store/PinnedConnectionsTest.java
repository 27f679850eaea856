package io.tollgate.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.testing.RedisNode;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/** The per-loop connections against a real Redis: what one loop turn asks for goes out in one write. */
class PinnedConnectionsTest {

    private static RedisNode node;
    private static Vertx vertx;
    private static Redis redis;

    @BeforeAll
    static void start() {
        node = new RedisNode();
        vertx = Vertx.vertx();
        redis = Redis.createClient(vertx, node.address());
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        node.close();
    }

    @Test
    void commandsOfOneLoopTurnReachRedisInOneReadAndAnswerInOrder() throws Exception {
        PinnedConnections connections = new PinnedConnections(redis, true);
        Context loop = vertx.getOrCreateContext();
        onLoop(loop, () -> connections.send(Request.cmd(Command.PING))); // connects
        String key = "pinned-" + System.nanoTime();

        long readsBefore = reads();
        List<Response> answers = onLoop(loop, () -> {
            List<Future<Response>> sent = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                sent.add(connections.send(Request.cmd(Command.INCR).arg(key)));
            }
            return Future.all(sent).map(all -> all.<Response>list());
        });
        long reads = reads() - readsBefore - readsOfInfo();

        assertThat(answers).extracting(Response::toLong).containsExactlyElementsOf(
                java.util.stream.LongStream.rangeClosed(1, 50).boxed().toList());
        assertThat(reads).as("reads by Redis for 50 commands sent in one loop turn, at most %d per write",
                PinnedConnections.MAX_BATCH).isBetween(1L, 2L);
    }

    @Test
    void aFailingCommandFailsItsBatchAndTheNextBatchIsServed() throws Exception {
        PinnedConnections connections = new PinnedConnections(redis, true);
        Context loop = vertx.getOrCreateContext();
        String text = "text-" + System.nanoTime();
        String counter = "counter-" + System.nanoTime();
        onLoop(loop, () -> connections.send(Request.cmd(Command.SET).arg(text).arg("not a number")));

        assertThatThrownBy(() -> onLoop(loop, () -> {
            Future<Response> good = connections.send(Request.cmd(Command.INCR).arg(counter));
            Future<Response> bad = connections.send(Request.cmd(Command.INCR).arg(text));
            return Future.all(good, bad).map(all -> all.<Response>resultAt(0));
        })).hasMessageContaining("not an integer");

        Response next = onLoop(loop, () -> connections.send(Request.cmd(Command.INCR).arg(counter)));
        assertThat(next.toLong()).as("the batch's good command ran in Redis; only its answer was lost").isEqualTo(2);

        Response alone = onLoop(loop, () -> {
            Future<Response> failing = connections.send(Request.cmd(Command.INCR).arg(text));
            Future<Response> sibling = connections.send(Request.cmd(Command.INCR).arg(text));
            return connections.sendAlone(Request.cmd(Command.INCR).arg(counter))
                    .compose(r -> Future.join(failing, sibling).transform(ignored -> Future.succeededFuture(r)));
        });
        assertThat(alone.toLong()).as("sent alone in the same loop turn as a failing batch").isEqualTo(3);
    }

    @Test
    void aKilledConnectionIsReplacedOnTheNextCommand() throws Exception {
        PinnedConnections connections = new PinnedConnections(redis, true);
        Context loop = vertx.getOrCreateContext();
        String name = "pinned-kill-" + System.nanoTime();
        onLoop(loop, () -> connections.send(Request.cmd(Command.CLIENT).arg("SETNAME").arg(name)));
        assertThat(RedisCli.run(node.port(), "CLIENT", "KILL", "TYPE", "normal")).isNotBlank();

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                onLoop(loop, () -> connections.send(Request.cmd(Command.PING)).recover(
                        err -> Future.succeededFuture())))
                .as("PING on a new connection").isNotNull());
        Response name2 = onLoop(loop, () -> connections.send(Request.cmd(Command.CLIENT).arg("GETNAME")));
        assertThat(name2).as("a new connection has no name").isNull();
    }

    @Test
    void offAnEventLoopThePooledClientIsUsed() throws Exception {
        PinnedConnections connections = new PinnedConnections(redis, true);
        Response pong = connections.send(Request.cmd(Command.PING)).toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(pong.toString()).isEqualTo("PONG");
    }

    /** Runs {@code action} on the event loop of {@code context} and waits for what it returns. */
    private static <T> T onLoop(Context context, Supplier<Future<T>> action) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        context.runOnContext(v -> action.get().onComplete(r -> {
            if (r.succeeded()) {
                result.complete(r.result());
            } else {
                result.completeExceptionally(r.cause());
            }
        }));
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static long reads() {
        return RedisCli.info(node.port(), "total_reads_processed");
    }

    /** The reads one {@code redis-cli INFO} costs Redis, measured (its own connection's commands). */
    private static long readsOfInfo() {
        long first = reads();
        return reads() - first;
    }
}
