package io.tollgate.gateway.proxy;

import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.RawWebSocket.counting;
import static io.tollgate.gateway.support.RawWebSocket.utf8;
import static io.tollgate.gateway.support.WebSocketEcho.echo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.tollgate.gateway.support.RawWebSocket;
import io.tollgate.gateway.support.WebSocketEcho;
import io.tollgate.gateway.support.WebSockets;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.json.JsonObject;

/**
 * WebSocket through the gateway, on real sockets and a real Redis, to a {@link WebSocketEcho} upstream: frames
 * relayed untouched both ways, close codes and reasons passed on, an upgrade checked like any request (and a
 * refused one never upgraded nor sent upstream), a {@code concurrency} slot held per open socket and given back
 * however the socket ends; the close handshake relayed after the frames before it, and frames and messages up to
 * the limits (here 2 MiB and 4 MiB) relayed whole, with the same frames in and out as the backend direct, and a
 * close left unanswered given up after the close timeout (here 2 s).
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
@WithTestResource(value = WebSocketEcho.class, initArgs = {@ResourceArg(name = "max-frame-size", value = "2M"),
        @ResourceArg(name = "max-message-size", value = "4M"), @ResourceArg(name = "close-timeout", value = "2s")})
class WebSocketTest {

    private static final String RULES = """
            [{"id": "ws.inflight", "match": {"path": "/ws/held/**"}, "key": "api_key", "algorithm": "concurrency",
              "limit": 2, "failure_mode": "closed"},
             {"id": "ws.rate", "match": {"path": "/ws/rate/**"}, "key": "api_key", "algorithm": "fixed_window",
              "limit": 3, "period": "1m"}]""";

    private final WebSockets sockets = new WebSockets();

    @Inject
    WebSocketRelay relay;

    private String apiKey;

    @AfterEach
    void closeClient() {
        sockets.close();
    }

    @BeforeEach
    void freshClient() {
        apiKey = "ws-" + UUID.randomUUID();
        install(RULES);
        echo().reset();
    }

    @Test
    void framesOfEveryKindPassUntouchedAndTheUpstreamsSubprotocolIsTheClients() throws Exception {
        WebSocket socket = sockets.open(port(), "/ws/echo?room=1", apiKey, List.of("chat.v9", "chat.v2"));
        BlockingQueue<String> frames = new LinkedBlockingQueue<>();
        BlockingQueue<String> pongs = new LinkedBlockingQueue<>();
        socket.frameHandler(frame -> {
            if (frame.isText() || frame.isBinary() || frame.isContinuation()) {
                frames.add(WebSockets.describe(frame));
            }
        });
        socket.pongHandler(pong -> pongs.add(pong.toString()));

        assertThat(socket.subProtocol()).isEqualTo("chat.v2");
        assertThat(echo().lastUri()).isEqualTo("/ws/echo?room=1");
        assertThat(echo().lastHeaders().get("Sec-WebSocket-Protocol")).isEqualTo("chat.v9,chat.v2");
        assertThat(echo().lastHeaders().get("X-Forwarded-For")).isEqualTo("127.0.0.1");
        assertThat(echo().lastHeaders().get("X-API-Key")).isEqualTo(apiKey);

        socket.writeFinalTextFrame("hello");
        socket.writeFinalBinaryFrame(Buffer.buffer(new byte[]{0, 1, 2, (byte) 0xff}));
        socket.writeFrame(WebSocketFrame.textFrame("frag", false));
        socket.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer("men"), false));
        socket.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer("ted"), true));
        socket.writePing(Buffer.buffer("are you there"));

        assertThat(WebSockets.take(frames, 5)).containsExactly("TEXT fin hello", "BINARY fin 000102ff",
                "TEXT more frag", "CONTINUATION more men", "CONTINUATION fin ted");
        // the ping reaches the upstream, and its pong the client
        assertThat(pongs.poll(10, TimeUnit.SECONDS)).isEqualTo("are you there");
        await().atMost(Duration.ofSeconds(10)).until(() -> echo().pings().contains("are you there"));
        socket.close();
    }

    @Test
    void aCloseCodeAndReasonPassBothWays() throws Exception {
        WebSocket closedByUpstream = sockets.open(port(), "/ws/echo", apiKey, List.of());
        CompletableFuture<String> seen = WebSockets.closing(closedByUpstream);
        closedByUpstream.writeFinalTextFrame("close 4001 upstream says bye");
        assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("4001 upstream says bye");

        WebSocket closedByClient = sockets.open(port(), "/ws/echo", apiKey, List.of());
        closedByClient.close((short) 4002, "client says bye");
        await().atMost(Duration.ofSeconds(10)).until(() -> echo().closes().contains("4002 client says bye"));
    }

    @Test
    void theUpgradeAfterTheLimitGets429WithItsHeadersAndNeverReachesTheUpstream() throws Exception {
        for (int i = 0; i < 3; i++) {
            sockets.open(port(), "/ws/rate/feed", apiKey, List.of()).close();
        }
        assertThatThrownBy(() -> sockets.open(port(), "/ws/rate/feed", apiKey, List.of()))
                .hasCauseInstanceOf(UpgradeRejectedException.class)
                .cause().extracting(e -> ((UpgradeRejectedException) e).getStatus()).isEqualTo(429);

        RawHttp.Answer refused = WebSockets.upgradeAnswer(port(), "/ws/rate/feed", apiKey);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("Upgrade")).isNull();
        assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 60L);
        assertThat(refused.header("RateLimit-Policy")).isEqualTo("\"ws.rate\";q=3;w=60");
        assertThat(refused.header("RateLimit")).startsWith("\"ws.rate\";r=0;");
        assertThat(refused.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(refused.body()).contains("\"violated-policies\":[\"ws.rate\"]");
        assertThat(echo().handshakes()).isEqualTo(3);
    }

    @Test
    void aConcurrencyRuleOfTwoHoldsTwoOpenSocketsAndAThirdGets429UntilOneCloses() throws Exception {
        WebSocket first = sockets.open(port(), "/ws/held/a", apiKey, List.of());
        WebSocket second = sockets.open(port(), "/ws/held/b", apiKey, List.of());
        assertThat(remaining()).isZero();
        RawHttp.Answer refused = WebSockets.upgradeAnswer(port(), "/ws/held/c", apiKey);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        assertThat(refused.header("RateLimit-Policy")).isEqualTo("\"ws.inflight\";q=2;qu=\"concurrent-requests\"");
        assertThat(echo().handshakes()).isEqualTo(2);

        first.close();
        await("the closed socket's slot is back").atMost(Duration.ofSeconds(5)).until(() -> remaining() == 1);
        WebSocket third = sockets.open(port(), "/ws/held/c", apiKey, List.of());
        assertThat(remaining()).isZero();
        second.close();
        third.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void aClientThatDropsItsConnectionWithoutACloseFrameFreesItsSlotAtOnce() throws Exception {
        WebSockets.Raw raw = WebSockets.rawUpgrade(port(), "/ws/held/drop", apiKey);
        assertThat(raw.answer().status()).isEqualTo(101);
        // the 101 carries the rate-limit headers of the check, as an allowed answer does
        assertThat(raw.answer().header("RateLimit-Policy")).isEqualTo("\"ws.inflight\";q=2;qu=\"concurrent-requests\"");
        assertThat(raw.answer().header("RateLimit")).isEqualTo("\"ws.inflight\";r=1;t=0");
        await().atMost(Duration.ofSeconds(5)).until(() -> echo().open() >= 1 && remaining() == 1);
        raw.socket().close(); // TCP FIN, no close frame
        await("the slot is back and the upstream told").atMost(Duration.ofSeconds(5))
                .until(() -> remaining() == 2 && echo().closes().contains("1001 the other side went away"));
    }

    @Test
    void aSocketOpenLongerThanItsLeaseKeepsItsSlotUntilItCloses() throws Exception {
        String shortLease = RULES.replace("\"limit\": 2, \"failure_mode\"",
                "\"limit\": 2, \"lease\": \"1s\", \"failure_mode\"");
        assertThat(shortLease).contains("\"lease\": \"1s\"");
        install(shortLease);
        WebSocket socket = sockets.open(port(), "/ws/held/long", apiKey, List.of());
        // three lease times and more: its renewals find the upgraded exchange live throughout
        await("the open socket holds its slot").during(Duration.ofMillis(3500)).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250)).until(() -> remaining() == 1);
        socket.close();
        await("the closed socket's slot is back").atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void aSocketTheUpstreamClosesFreesItsSlot() throws Exception {
        WebSocket socket = sockets.open(port(), "/ws/held/x", apiKey, List.of());
        CompletableFuture<String> seen = WebSockets.closing(socket);
        assertThat(remaining()).isEqualTo(1);
        socket.writeFinalTextFrame("close 1000 done");
        assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("1000 done");
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void anUpstreamThatRefusesTheHandshakeGivesItsStatusAndOneThatIsDownA502() throws Exception {
        RawHttp.Answer refused = WebSockets.upgradeAnswer(port(), "/ws/refuse/403", apiKey);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"upstream-refused\"");
        RawHttp.Answer down = WebSockets.upgradeAnswer(port(), "/dead/ws", apiKey);
        assertThat(down.status()).isEqualTo(502);
        assertThat(down.body()).contains("\"type\":\"bad-gateway\"");
    }

    @Test
    void aStoppingGatewayClosesItsSocketsWith1001AndGivesTheirSlotsBack() throws Exception {
        WebSocket socket = sockets.open(port(), "/ws/held/stop", apiKey, List.of());
        CompletableFuture<String> seen = WebSockets.closing(socket);
        assertThat(remaining()).isEqualTo(1);
        assertThat(metric("tollgate_websockets_open")).isGreaterThanOrEqualTo(1);
        assertThat(metric("tollgate_websockets_relayed_total")).isGreaterThanOrEqualTo(1);

        relay.goAwayAll("gateway stopping"); // what the shutdown observer does before the server stops

        assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("1001 gateway stopping");
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2
                && echo().closes().contains("1001 gateway stopping") && metric("tollgate_websockets_open") == 0);
    }

    @Test
    void anUpstreamThatDoesNotReadStopsTheGatewayReadingTheClientUntilItDoes() {
        long total = 64L * 1024 * 1024;
        AtomicLong sent = new AtomicLong();
        sockets.send(port(), "/ws/paused/upload", apiKey, total, 32 * 1024, sent);
        // the client's writes stall: the gateway holds no more than the sockets' buffers, not the whole upload
        long[] seen = {-1};
        await("the client's writes stall").pollInterval(Duration.ofMillis(500)).atMost(Duration.ofSeconds(60))
                .until(() -> {
                    long now = sent.get();
                    boolean still = now > 0 && now == seen[0];
                    seen[0] = now;
                    return still;
                });
        assertThat(sent.get()).isLessThan(total / 2);
        assertThat(echo().bytesRead()).isZero();

        echo().resumeReading();
        await("all of it arrives once the upstream reads").atMost(Duration.ofSeconds(60))
                .until(() -> echo().bytesRead() == total);
    }

    @Test
    void messagesRightBeforeTheClientsCloseComeBackBeforeTheBackendsClose() throws Exception {
        List<String> expected = List.of("TEXT more one ", "CONTINUATION more two ", "CONTINUATION fin three",
                "BINARY fin 1000 bytes #" + Arrays.hashCode(counting(1000)), "CLOSE 4001 bye", "END");
        RawWebSocket.Script script = socket -> {
            socket.frame(false, RawWebSocket.TEXT, utf8("one "))
                    .frame(false, RawWebSocket.CONTINUATION, utf8("two "))
                    .frame(true, RawWebSocket.CONTINUATION, utf8("three"))
                    .frame(true, RawWebSocket.BINARY, counting(1000))
                    .close(4001, "bye");
            return socket.readUntilClose();
        };
        assertThat(direct("/ws/echo", script)).isEqualTo(expected);
        assertThat(throughGateway("/ws/held/bye", script)).isEqualTo(expected);
        assertThat(echo().closes()).containsExactly("4001 bye", "4001 bye");
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void messagesRightBeforeTheBackendsCloseReachTheClientBeforeItAndTheClientsAnswerReachesTheBackend()
            throws Exception {
        List<String> expected = List.of("TEXT more one ", "CONTINUATION more two ", "CONTINUATION fin three",
                "BINARY fin 1000 bytes #" + Arrays.hashCode(WebSocketEcho.burstBytes()), "CLOSE 4002 done", "END");
        RawWebSocket.Script script = socket -> {
            socket.text("burst 4002 done");
            List<String> frames = socket.readUntilClose();
            socket.close(1000, "ok");
            return frames;
        };
        assertThat(direct("/ws/echo", script)).isEqualTo(expected);
        assertThat(throughGateway("/ws/held/done", script)).isEqualTo(expected);
        await().atMost(Duration.ofSeconds(5)).until(() -> echo().closes().size() == 2);
        assertThat(echo().closes()).containsExactly("1000 ok", "1000 ok");
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void largeSingleFramesPassWhole() throws Exception {
        RawWebSocket.Script script = socket -> {
            socket.frame(true, RawWebSocket.BINARY, counting(66_000))
                    .frame(true, RawWebSocket.BINARY, counting(70_000))
                    .frame(true, RawWebSocket.TEXT, utf8("x".repeat(200_000)))
                    .frame(true, RawWebSocket.BINARY, counting(1024 * 1024))
                    .close(1000, "");
            return socket.readUntilClose();
        };
        List<String> direct = direct("/ws/echo", script);
        assertThat(direct).hasSize(6).startsWith("BINARY fin 66000 bytes #" + Arrays.hashCode(counting(66_000)))
                .endsWith("CLOSE 1000", "END");
        assertThat(throughGateway("/ws/echo", script)).isEqualTo(direct);
    }

    @Test
    void aLargeFragmentedMessagePassesFrameByFrame() throws Exception {
        RawWebSocket.Script script = socket -> {
            socket.frame(false, RawWebSocket.BINARY, counting(1024 * 1024));
            socket.frame(true, RawWebSocket.PING, utf8("between fragments"));
            for (int i = 0; i < 10; i++) {
                socket.frame(false, RawWebSocket.CONTINUATION, counting(256 * 1024 + i));
            }
            socket.frame(true, RawWebSocket.CONTINUATION, counting(1000)).close(1000, "");
            return socket.readUntilClose();
        };
        List<String> direct = direct("/ws/echo", script);
        List<String> gateway = throughGateway("/ws/echo", script);
        // the ping's one pong is the backend's, between the same fragments as direct
        assertThat(gateway).isEqualTo(direct).hasSize(15).contains("PONG fin " + HexFormat.of().formatHex(
                utf8("between fragments")));
    }

    @Test
    void aFrameOverTheLimitIsClosedWith1009AtBothEndsNeverReset() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(port(), "/ws/held/big", apiKey)) {
            socket.text("before");
            assertThat(socket.read().describe()).isEqualTo("TEXT fin before");
            socket.frame(true, RawWebSocket.BINARY, counting(2 * 1024 * 1024 + 1));
            closedWith1009(socket, List.of(socket.read().describe()), "2097152");
        }
    }

    @Test
    void aMessageOverTheLimitIsClosedWith1009() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(port(), "/ws/held/long", apiKey)) {
            socket.frame(false, RawWebSocket.BINARY, counting(1024 * 1024));
            for (int i = 0; i < 4; i++) {
                socket.frame(false, RawWebSocket.CONTINUATION, counting(1024 * 1024));
            }
            closedWith1009(socket, socket.readUntilClose(), "4194304");
        }
    }

    /**
     * {@code frames} end with a close 1009 naming {@code limit}; once the client answers it the gateway ends the
     * connection (no reset), the backend was closed with 1009 too, and the slot is back.
     */
    private void closedWith1009(RawWebSocket socket, List<String> frames, String limit) throws IOException {
        assertThat(frames.get(frames.size() - 1)).startsWith("CLOSE 1009 ").contains(limit);
        socket.close(1009, "");
        assertThat(socket.ended()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2 && echo().closes().stream()
                .anyMatch(c -> c.startsWith("1009 the client was refused: ") && c.contains(limit)));
    }

    @Test
    void anUnmaskedClientFrameIsClosedWith1002() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(port(), "/ws/held/unmasked", apiKey)) {
            socket.frame(true, RawWebSocket.TEXT, utf8("plain"), false);
            assertThat(socket.read().describe()).startsWith("CLOSE 1002");
            assertThat(socket.ended()).isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void aClientThatNeverAnswersTheBackendsCloseIsClosedAfterTheCloseTimeout() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(port(), "/ws/held/deaf", apiKey)) {
            socket.text("burst 4003 bye");
            assertThat(socket.readUntilClose()).endsWith("CLOSE 4003 bye");
            long closed = System.nanoTime();
            assertThat(socket.after()).isEqualTo("END"); // no answer from this client: the gateway stops waiting
            assertThat(System.nanoTime() - closed).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(remaining() + " " + echo().closes())
                .isEqualTo("2 [1001 close timeout]"));
    }

    @Test
    void aCloseBehindFramesTheClientDoesNotReadIsGivenUpOnAfterTheCloseTimeout() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(port(), "/ws/held/stuck", apiKey, 16 * 1024)) {
            long sent = System.nanoTime();
            // 8 MiB, then a close: more than the client's small receive buffer and the gateway's send buffer hold
            socket.text("send " + "binary:1048576 ".repeat(8) + "close:4004:stuck");
            // the client reads nothing: the backend's close waits in the gateway behind frames it cannot write
            await("the backend's close answered on the close timeout").atMost(Duration.ofSeconds(8))
                    .until(() -> echo().closes().contains("1001 close timeout"));
            assertThat(System.nanoTime() - sent).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1500));
            assertThat(readToEnd(socket)).as("the client's connection is closed").isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    /** Reads {@code socket} to its end: true once the connection ended, cut short in a frame or not. */
    private static boolean readToEnd(RawWebSocket socket) throws IOException {
        try {
            String next;
            do {
                next = socket.after();
            } while (!next.equals("END") && !next.equals("RESET"));
            return true;
        } catch (EOFException cutShort) {
            return true;
        }
    }

    @Test
    void framesTheBackendWritesTogetherReachTheClientTogetherAsDirect() throws Exception {
        RawWebSocket.Script script = socket -> {
            socket.text("send " + "text:gathered ".repeat(40));
            List<String> frames = socket.readOnce();
            socket.close(1000, "");
            return frames;
        };
        List<String> direct = direct("/ws/echo", script);
        assertThat(direct).hasSize(41).endsWith("CLOSE 1000").startsWith(Collections.nCopies(40, "TEXT fin gathered")
                .toArray(String[]::new));
        // the gateway writes the frames it read from the backend in one turn with one flush, as the backend did
        assertThat(throughGateway("/ws/echo", script)).isEqualTo(direct);
    }

    /** {@code script} run on a socket to the backend direct; {@code "END"} follows if the backend then closed. */
    private List<String> direct(String path, RawWebSocket.Script script) throws IOException {
        return RawWebSocket.run(echo().port(), path, apiKey, script);
    }

    /** {@code script} run on a socket through the gateway; {@code "END"} follows if the gateway then closed. */
    private List<String> throughGateway(String path, RawWebSocket.Script script) throws IOException {
        return RawWebSocket.run(port(), path, apiKey, script);
    }

    /** Upgrades that are not RFC 6455 handshakes (§4.2.1), each refused before any upstream socket is opened. */
    static Stream<Arguments> badHandshakes() {
        String key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
        String version = "Sec-WebSocket-Version: 13\r\n";
        return Stream.of(
                Arguments.of("no key", version),
                Arguments.of("an empty key", "Sec-WebSocket-Key: \r\n" + version),
                Arguments.of("a key of 15 bytes", "Sec-WebSocket-Key: eHh4eHh4eHh4eHh4eHh4\r\n" + version),
                Arguments.of("a key of 17 bytes", "Sec-WebSocket-Key: eHh4eHh4eHh4eHh4eHh4eHg=\r\n" + version),
                Arguments.of("a key that is not base64", "Sec-WebSocket-Key: not*a*nonce*at*all*!!==\r\n" + version),
                Arguments.of("two keys", key + key + version),
                Arguments.of("no version", key),
                Arguments.of("version 8", key + "Sec-WebSocket-Version: 8\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badHandshakes")
    void aHandshakeThatIsNotOneIsRefusedBeforeAnyUpstreamSocket(String shape, String headers) throws Exception {
        double before = metric("tollgate_refused_total{reason=\"bad-handshake\"}");

        RawHttp.Answer answer = RawHttp.send("127.0.0.1", port(), "GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nX-API-Key: " + apiKey + "\r\n" + headers + "\r\n",
                new byte[0], false).answer();

        assertThat(answer.status()).as("status").isEqualTo(400);
        assertThat(answer.header("Upgrade")).isNull();
        assertThat(new JsonObject(answer.body()).getString("type")).isEqualTo("bad-handshake");
        assertThat(echo().handshakes()).as("handshakes the upstream was sent").isZero();
        assertThat(metric("tollgate_refused_total{reason=\"bad-handshake\"}") - before).isEqualTo(1.0);
    }

    @Test
    void aHandshakeOfAnotherVersionIsToldTheOneTheGatewaySpeaks() throws Exception {
        RawHttp.Answer answer = RawHttp.send("127.0.0.1", port(), "GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 8\r\n\r\n", new byte[0], false).answer();

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.header("Sec-WebSocket-Version")).isEqualTo("13");
    }

    private long remaining() {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/ws/held/x").jsonPath()
                .getLong("rules[0].remaining");
    }
}
