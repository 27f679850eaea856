package io.tollgate.gateway.proxy;

import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.RawWebSocket.BINARY;
import static io.tollgate.gateway.support.RawWebSocket.CLOSE;
import static io.tollgate.gateway.support.RawWebSocket.CONTINUATION;
import static io.tollgate.gateway.support.RawWebSocket.PING;
import static io.tollgate.gateway.support.RawWebSocket.PONG;
import static io.tollgate.gateway.support.RawWebSocket.TEXT;
import static io.tollgate.gateway.support.RawWebSocket.counting;
import static io.tollgate.gateway.support.RawWebSocket.utf8;
import static io.tollgate.gateway.support.WebSocketEcho.echo;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawWebSocket;
import io.tollgate.gateway.support.WebSocketEcho;
import io.tollgate.gateway.support.WebSockets;

/**
 * RFC 6455 through the gateway, with frames the tests write themselves on raw sockets: each case runs against the
 * {@link WebSocketEcho} backend direct and through the gateway, and what the client reads (every frame, then how the
 * connection ended) and what the backend received must be the same both ways. Pings and pongs both ways, one pong
 * per ping; fragmented messages frame by frame with control frames between fragments; close codes and reasons both
 * ways; text that is not UTF-8 left to the backend; frames that break the protocol, from either side, failing the
 * connection; a close that the other side cannot read given up on after the close timeout. The same application as
 * {@link WebSocketTest} (same resources): no second start.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
@WithTestResource(value = WebSocketEcho.class, initArgs = {@ResourceArg(name = "max-frame-size", value = "2M"),
        @ResourceArg(name = "max-message-size", value = "4M"), @ResourceArg(name = "close-timeout", value = "2s")})
class WebSocketConformanceTest {

    /** A reason of one, two, three and four UTF-8 bytes a character. */
    private static final String REASON = "bye, ça va, € 👋";

    private String apiKey;

    @BeforeEach
    void fresh() {
        apiKey = "ws-rfc-" + UUID.randomUUID();
        // an earlier case's sockets close on the backend a moment after its client has read the close: their closes
        // would land in this case's record
        await("the backend's sockets of earlier cases closed").atMost(Duration.ofSeconds(10))
                .until(() -> echo().open() == 0);
        echo().reset();
    }

    @Test
    void aClientsPingIsAnsweredByTheBackendAloneOnce() throws Exception {
        List<String> frames = bothWays("/ws/echo", socket -> {
            socket.ping("are you there").text("after").close(1000, "");
            return socket.readUntilClose();
        });
        assertThat(frames).containsExactly("PONG fin " + hex("are you there"), "TEXT fin after", "CLOSE 1000", "END");
        assertThat(echo().pings()).containsExactly("are you there", "are you there");
    }

    @Test
    void aBackendsPingReachesTheClientAndTheClientsPongAloneTheBackend() throws Exception {
        List<String> frames = bothWays("/ws/echo", socket -> {
            socket.text("send ping:b1 text:after");
            RawWebSocket.Frame ping = socket.read();
            socket.frame(true, PONG, ping.payload());
            List<String> read = new ArrayList<>(List.of(ping.describe(), socket.read().describe()));
            socket.close(1000, "");
            read.addAll(socket.readUntilClose());
            return read;
        });
        assertThat(frames).containsExactly("PING fin " + hex("b1"), "TEXT fin after", "CLOSE 1000", "END");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(echo().closes()).hasSize(2));
        assertThat(echo().pongs()).containsExactly("b1", "b1");
    }

    @Test
    void unsolicitedPongsPassBothWays() throws Exception {
        List<String> frames = bothWays("/ws/echo", socket -> {
            socket.pong("heartbeat").text("send pong:back text:after").close(1000, "");
            return socket.readUntilClose();
        });
        assertThat(frames).containsExactly("PONG fin " + hex("back"), "TEXT fin after", "CLOSE 1000", "END");
        assertThat(echo().pongs()).containsExactly("heartbeat", "heartbeat");
    }

    @Test
    void messagesInManyFragmentsPassFrameByFrameWithPingsBetweenThem() throws Exception {
        List<String> frames = bothWays("/ws/echo", socket -> {
            for (int opcode : new int[]{TEXT, BINARY}) {
                for (int i = 0; i < 40; i++) {
                    socket.frame(i == 39, i == 0 ? opcode : CONTINUATION, utf8("fragment " + i));
                    if (i % 10 == 5) {
                        socket.ping("ping " + i);
                    }
                }
            }
            socket.close(1000, "");
            return socket.readUntilClose();
        });
        assertThat(frames).hasSize(80 + 8 + 2).startsWith("TEXT more fragment 0").contains("PONG fin " + hex("ping 5"),
                "CONTINUATION fin fragment 39", "BINARY more " + hex("fragment 0"));
    }

    @Test
    void aBackendsFragmentsPassFrameByFrameWithControlFramesBetweenThem() throws Exception {
        List<String> frames = bothWays("/ws/echo", socket -> {
            socket.text("send text~:one ping:p1 cont~:two pong:p2 cont:three binary~:100 ping:p3 cont:four");
            List<String> read = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                read.add(socket.read().describe());
            }
            socket.close(1000, "");
            read.addAll(socket.readUntilClose());
            return read;
        });
        assertThat(frames).containsExactly("TEXT more one", "PING fin " + hex("p1"), "CONTINUATION more two",
                "PONG fin " + hex("p2"), "CONTINUATION fin three", "BINARY more 100 bytes #" + hash(counting(100)),
                "PING fin " + hex("p3"), "CONTINUATION fin four", "CLOSE 1000", "END");
    }

    @Test
    void aCloseBetweenFragmentsPassesBothWays() throws Exception {
        assertThat(bothWays("/ws/echo", socket -> {
            socket.frame(false, TEXT, utf8("half")).close(1000, "mid-message");
            return socket.readUntilClose();
        })).containsExactly("TEXT more half", "CLOSE 1000 mid-message", "END");
        assertThat(bothWays("/ws/echo", socket -> {
            socket.text("send binary~:10 close:4000:mid-message");
            List<String> read = socket.readUntilClose();
            socket.close(4000, "mid-message");
            return read;
        })).containsExactly("BINARY more " + hex(counting(10)), "CLOSE 4000 mid-message", "END");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {1000, 1001, 1003, 1008, 1011, 3000, 4000, 4999, 5000})
    void aClientsCloseCodeAndReasonReachTheBackendAndItsAnswerTheClient(int code) throws Exception {
        assertThat(bothWays("/ws/echo", socket -> socket.close(code, REASON).readUntilClose()))
                .containsExactly("CLOSE " + code + " " + REASON, "END");
        assertThat(echo().closes()).containsExactly(code + " " + REASON, code + " " + REASON);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {1000, 1001, 1003, 1008, 1011, 3000, 4000, 4999, 5000})
    void aBackendsCloseCodeAndReasonReachTheClientAndItsAnswerTheBackend(int code) throws Exception {
        assertThat(bothWays("/ws/echo", socket -> {
            socket.text("send close:" + code + ":" + URLEncoder.encode(REASON, UTF_8));
            List<String> read = socket.readUntilClose();
            socket.close(4321, "answer");
            return read;
        })).containsExactly("CLOSE " + code + " " + REASON, "END");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(echo().closes()).hasSize(2));
        assertThat(echo().closes()).containsExactly("4321 answer", "4321 answer");
    }

    @Test
    void aCloseWithoutACodeIsAnsweredAsDirect() throws Exception {
        assertThat(bothWays("/ws/echo", socket -> socket.frame(true, CLOSE, new byte[0]).readUntilClose()))
                .containsExactly("CLOSE 1000", "END");
    }

    @Test
    void textThatIsNotUtf8IsTheBackendsToJudge() throws Exception {
        byte[] notUtf8 = {'a', (byte) 0xC3, '(', (byte) 0xFF};
        byte[] e = utf8("é");
        // the echo takes it, and so does the gateway; a character split over two fragments is no fault either
        assertThat(bothWays("/ws/echo", socket -> {
            socket.frame(true, TEXT, notUtf8).frame(false, TEXT, new byte[]{e[0]})
                    .frame(true, CONTINUATION, new byte[]{e[1]}).close(1000, "");
            return socket.readUntilClose();
        })).containsExactly("TEXT fin not UTF-8 61c328ff", "TEXT more not UTF-8 c3", "CONTINUATION fin not UTF-8 a9",
                "CLOSE 1000", "END");
        // a backend that checks closes the socket with 1007, and the client hears it from that backend
        assertThat(bothWays("/ws/strict", socket -> {
            socket.frame(false, TEXT, new byte[]{e[0]}).frame(true, CONTINUATION, new byte[]{e[1]})
                    .frame(true, TEXT, notUtf8);
            List<String> read = socket.readUntilClose();
            socket.close(1007, "");
            return read;
        })).containsExactly("TEXT more not UTF-8 c3", "CONTINUATION fin not UTF-8 a9", "CLOSE 1007 not UTF-8", "END");
    }

    /** Client frames that break RFC 6455 (§5.2, §5.4, §5.5, §7.4), each refused by the decoder that reads them. */
    static Stream<Arguments> brokenClientFrames() {
        byte[] hi = utf8("hi");
        return Stream.of(
                Arguments.of("a frame not masked", (Breaker) s -> s.frame(true, TEXT, hi, false), 1002),
                Arguments.of("a reserved opcode (3)", (Breaker) s -> s.frame(0x83, hi, true), 1002),
                Arguments.of("a reserved control opcode (0xB)", (Breaker) s -> s.frame(0x8B, hi, true), 1002),
                Arguments.of("a fragmented ping", (Breaker) s -> s.frame(false, PING, hi), 1002),
                Arguments.of("a ping of 126 bytes", (Breaker) s -> s.frame(true, PING, new byte[126]), 1002),
                Arguments.of("a continuation with no message", (Breaker) s -> s.frame(true, CONTINUATION, hi), 1002),
                Arguments.of("a text frame inside a message", (Breaker) s -> s.frame(false, TEXT, hi)
                        .frame(true, TEXT, hi), 1002),
                Arguments.of("a close of one byte", (Breaker) s -> s.frame(true, CLOSE, new byte[]{3}), 1002),
                Arguments.of("close code 1005", (Breaker) s -> s.close(1005, ""), 1002),
                Arguments.of("close code 1006", (Breaker) s -> s.close(1006, ""), 1002),
                Arguments.of("close code 999", (Breaker) s -> s.close(999, ""), 1002),
                Arguments.of("close code 2999", (Breaker) s -> s.close(2999, ""), 1002),
                Arguments.of("a close reason not UTF-8", (Breaker) s -> s.frame(true, CLOSE,
                        ByteBuffer.allocate(4).putShort((short) 1000).put((byte) 0xC3).put((byte) 0x28).array()),
                        1007));
    }

    /**
     * Direct, Vert.x's server fails the connection at the same frame by dropping it; the gateway sends the close that
     * RFC 6455 §7.1.7 asks for first, with the decoder's code and reason, and the backend is closed with the same code.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenClientFrames")
    void aClientFrameThatBreaksTheProtocolFailsTheConnectionWhereDirectDoes(String shape, Breaker breaker, int code)
            throws Exception {
        List<String> direct = failing(echo().port(), breaker);
        List<String> gateway = failing(port(), breaker);

        // the frames before the broken one pass both ways; then direct ends, and the gateway closes then ends
        List<String> before = direct.subList(0, direct.size() - 1);
        assertThat(direct.get(direct.size() - 1)).isIn("END", "RESET");
        assertThat(gateway).startsWith(before.toArray(String[]::new)).hasSize(before.size() + 2).endsWith("END");
        String close = gateway.get(before.size());
        assertThat(close).startsWith("CLOSE " + code + " ");
        await().atMost(Duration.ofSeconds(5)).until(() -> echo().closes().contains(code + " the client was refused: "
                + close.substring("CLOSE 1002 ".length())));
    }

    /** The frames read after text {@code before} and {@code breaker}'s frame, up to the connection's end. */
    private List<String> failing(int port, Breaker breaker) throws IOException {
        try (RawWebSocket socket = RawWebSocket.open(port, "/ws/echo", apiKey)) {
            socket.text("before");
            List<String> read = new ArrayList<>(List.of(socket.read().describe()));
            breaker.send(socket);
            String next;
            do {
                next = socket.after();
                read.add(next);
            } while (!next.equals("END") && !next.equals("RESET"));
            return read;
        }
    }

    /** Writes a frame that breaks the protocol. */
    interface Breaker {

        void send(RawWebSocket socket) throws IOException;
    }

    /**
     * A reserved bit that no negotiated extension defines fails the connection (RFC 6455 §5.2). Vert.x's server
     * takes the frame, bit dropped, as its decoder allows extensions whenever compression is on, negotiated or not; the
     * gateway negotiates none with its upstream, so it refuses the frame rather than relay it changed.
     */
    @ParameterizedTest(name = "RSV {0}")
    @ValueSource(ints = {0x40, 0x20, 0x10})
    void aReservedBitIsRefusedWith1002(int rsv) throws Exception {
        RawWebSocket.Script script = socket -> {
            socket.frame(0x80 | rsv | TEXT, utf8("hi"), true);
            return List.of(socket.read().describe());
        };
        assertThat(RawWebSocket.run(echo().port(), "/ws/echo", apiKey, socket -> {
            List<String> read = new ArrayList<>(script.run(socket));
            socket.close(1000, "");
            read.addAll(socket.readUntilClose());
            return read;
        })).containsExactly("TEXT fin hi", "CLOSE 1000", "END");
        assertThat(RawWebSocket.run(port(), "/ws/echo", apiKey, script))
                .containsExactly("CLOSE 1002 RSV != 0 and no extension negotiated", "END");
    }

    /** Per-message deflate, which sets RSV1, is the client's hop's own: the gateway inflates before the bit check. */
    @Test
    void aClientThatNegotiatesCompressionWithTheGatewayIsRelayedAsAnother() throws Exception {
        try (WebSockets sockets = new WebSockets()) {
            WebSockets.Extended compressed = sockets.openCompressed(port(), "/ws/echo", apiKey);
            BlockingQueue<String> messages = new LinkedBlockingQueue<>();
            compressed.socket().textMessageHandler(messages::add);
            compressed.socket().writeTextMessage("squeeze me ".repeat(100));
            assertThat(compressed.extensions()).startsWith("permessage-deflate");
            assertThat(messages.poll(10, TimeUnit.SECONDS)).isEqualTo("squeeze me ".repeat(100));
            assertThat(echo().lastHeaders().get("Sec-WebSocket-Extensions")).isNull();
        }
    }

    /** A backend that breaks the protocol fails the gateway's connection to it, as a client fails it (§5.1, §5.2). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"masked", "rsv1", "opcode3"})
    void aBackendFrameThatBreaksTheProtocolFailsTheConnectionWith1002(String kind) throws Exception {
        try (RawWebSocket direct = RawWebSocket.open(echo().port(), "/ws/raw/" + kind, apiKey)) {
            assertThat(direct.text("go").read().describe()).isIn("TEXT fin hi", "OPCODE3 fin 6869");
        }
        List<String> gateway = RawWebSocket.run(port(), "/ws/raw/" + kind, apiKey,
                socket -> socket.text("go").readUntilClose());

        assertThat(gateway).hasSize(2).endsWith("END");
        assertThat(gateway.get(0)).startsWith("CLOSE 1002 the upstream was refused: ");
        await().atMost(Duration.ofSeconds(5)).until(() -> echo().closes().size() == 1);
        assertThat("CLOSE " + echo().closes().get(0))
                .isEqualTo(gateway.get(0).replace("the upstream was refused: ", ""));
    }

    /**
     * {@code script} on a socket to the backend direct, then through the gateway: the frames it read and how the
     * connection ended, the same both ways.
     */
    private List<String> bothWays(String path, RawWebSocket.Script script) throws IOException {
        List<String> direct = RawWebSocket.run(echo().port(), path, apiKey, script);
        List<String> gateway = RawWebSocket.run(port(), path, apiKey, script);
        assertThat(gateway).as("through the gateway, against direct %s", direct).isEqualTo(direct);
        return gateway;
    }

    private static String hex(String text) {
        return hex(utf8(text));
    }

    private static String hex(byte[] bytes) {
        return java.util.HexFormat.of().formatHex(bytes);
    }

    private static int hash(byte[] bytes) {
        return java.util.Arrays.hashCode(bytes);
    }
}
