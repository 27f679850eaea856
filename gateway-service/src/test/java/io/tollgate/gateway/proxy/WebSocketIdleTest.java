package io.tollgate.gateway.proxy;

import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.WebSocketEcho.echo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.WebSocketEcho;
import io.tollgate.gateway.support.WebSockets;
import io.vertx.core.http.WebSocket;

/**
 * {@code tollgate.gateway.websocket.idle-timeout} (here 3 s) closes a quiet relayed socket at both ends with 1001 and
 * gives its slot back; the connection's own {@code quarkus.http.idle-timeout} (here 1.5 s) no longer applies once it
 * upgraded, and frames either way keep a socket open.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "store.timeout", value = "1s"),
        @ResourceArg(name = "idle-timeout", value = "1500ms")})
@WithTestResource(value = WebSocketEcho.class, initArgs = @ResourceArg(name = "idle-timeout", value = "3s"))
class WebSocketIdleTest {

    private final WebSockets sockets = new WebSockets();

    @AfterEach
    void closeClient() {
        sockets.close();
    }

    @Test
    void aQuietSocketOutlivesTheConnectionsIdleTimeoutThenClosesWith1001AndFreesItsSlot() throws Exception {
        String apiKey = "ws-idle-" + UUID.randomUUID();
        install("""
                [{"id": "ws.inflight", "match": {"path": "/ws/**"}, "key": "api_key", "algorithm": "concurrency",
                  "limit": 2, "failure_mode": "closed"}]""");
        echo().reset();
        WebSocket chatty = sockets.open(port(), "/ws/chatty", apiKey, List.of());
        WebSocket quiet = sockets.open(port(), "/ws/quiet", apiKey, List.of());
        long opened = System.nanoTime();
        CompletableFuture<Long> quietClosedAt = new CompletableFuture<>();
        quiet.closeHandler(v -> quietClosedAt.complete(System.nanoTime()));
        CompletableFuture<String> chattyClosed = WebSockets.closing(chatty);
        assertThat(remaining(apiKey)).isZero();

        // the chatty socket talks until the quiet one is closed
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            chatty.writeFinalTextFrame("still here");
            return quietClosedAt.isDone();
        });
        // by the gateway's idle timeout (a close frame with its code), not by the connection's (a TCP close)
        assertThat(quiet.closeStatusCode()).isEqualTo((short) 1001);
        assertThat(quiet.closeReason()).isEqualTo("idle timeout");
        assertThat(quietClosedAt.get() - opened).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(3));
        assertThat(chattyClosed).isNotDone();
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining(apiKey) == 1
                && echo().closes().contains("1001 idle timeout"));
        chatty.close();
    }

    private static long remaining(String apiKey) {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/ws/x").jsonPath()
                .getLong("rules[0].remaining");
    }
}
