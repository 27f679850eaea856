package io.tollgate.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/** The per-loop connections against a real Redis: one per loop, replaced when it dies; the pool off a loop. */
class PinnedConnectionsTest extends OnLoopTestBase {

    @Test
    void aKilledConnectionIsReplacedOnTheNextCommand() throws Exception {
        PinnedConnections connections = new PinnedConnections(redis);
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
        PinnedConnections connections = new PinnedConnections(redis);
        Response pong = connections.send(Request.cmd(Command.PING)).toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(pong.toString()).isEqualTo("PONG");
    }
}
