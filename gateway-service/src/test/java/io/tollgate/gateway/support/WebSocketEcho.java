package io.tollgate.gateway.support;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.http.WebSocketFrameType;

/**
 * A WebSocket upstream on a free port, routed by the gateway under test at {@code /ws} (the route
 * {@code tollgate.gateway.routes.ws}). It echoes every data frame as it came (text, binary, continuation) and
 * speaks the subprotocols {@code chat.v1} and {@code chat.v2}; a ping it answers with a pong (Vert.x does), a pong it
 * takes in silence. A text message {@code close <code> <reason>} makes it close the socket so; {@code burst <code>
 * <reason>} makes it send a text message in three fragments, a 1,000-byte binary message and at once a close so (a
 * backend that ends a socket right after its last messages); {@code send <frames>} makes it send the frames a
 * {@link FrameScript} names. Frames and messages may be up to 16 MiB. It counts the handshakes it was sent, keeps the
 * head of the last one, the pings and pongs it received, the sockets open now and the close codes and reasons its
 * clients sent. {@code /ws/refuse/<status>} refuses the handshake with that status. {@code /ws/paused} reads nothing
 * until {@link #resumeReading()}. {@code /ws/strict} echoes too, but closes a socket with 1007 on a text message that
 * is not UTF-8 (as RFC 6455 §8.1 asks of an endpoint). {@code /ws/raw/<kind>} is {@link BadServerFrames}. Init arg
 * {@code idle-timeout}: the gateway's
 * {@code tollgate.gateway.websocket.idle-timeout}, and likewise
 * {@code max-frame-size}, {@code max-message-size} and {@code close-timeout} when given.
 */
public class WebSocketEcho implements QuarkusTestResourceLifecycleManager {

    /** The echo of the running test: one per JVM, as Quarkus runs one application at a time. */
    private static volatile WebSocketEcho current;
    /** The largest frame and message the echo takes, above any limit of the gateway under test. */
    private static final int LARGEST = 16 * 1024 * 1024;

    private final AtomicInteger handshakes = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final Queue<String> closes = new ConcurrentLinkedQueue<>();
    private final Queue<String> pings = new ConcurrentLinkedQueue<>();
    private final Queue<String> pongs = new ConcurrentLinkedQueue<>();
    private final Queue<ServerWebSocket> paused = new ConcurrentLinkedQueue<>();
    private final AtomicLong bytesRead = new AtomicLong();
    private volatile String lastUri;
    private volatile MultiMap lastHeaders;
    private Vertx vertx;
    private HttpServer server;
    private Map<String, String> args = Map.of();

    @Override
    public void init(Map<String, String> initArgs) {
        this.args = initArgs;
    }

    @Override
    public Map<String, String> start() {
        vertx = Vertx.vertx();
        try {
            server = vertx.createHttpServer(new HttpServerOptions().setWebSocketSubProtocols(List.of("chat.v1",
                    "chat.v2")).setMaxWebSocketFrameSize(LARGEST).setMaxWebSocketMessageSize(LARGEST))
                    .requestHandler(this::handle)
                    .listen(0, "127.0.0.1")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the WebSocket echo did not start", e);
        }
        current = this;
        Map<String, String> config = new HashMap<>();
        config.put("tollgate.gateway.routes.ws.prefix", "/ws");
        config.put("tollgate.gateway.routes.ws.url", "http://127.0.0.1:" + server.actualPort());
        config.put("tollgate.gateway.websocket.idle-timeout", args.getOrDefault("idle-timeout", "10m"));
        for (String limit : List.of("max-frame-size", "max-message-size", "close-timeout")) {
            if (args.containsKey(limit)) {
                config.put("tollgate.gateway.websocket." + limit, args.get(limit));
            }
        }
        return config;
    }

    /** The echo of the running test. */
    public static WebSocketEcho echo() {
        return current;
    }

    private void handle(HttpServerRequest request) {
        handshakes.incrementAndGet();
        lastUri = request.uri();
        lastHeaders = MultiMap.caseInsensitiveMultiMap().addAll(request.headers());
        if (request.path().startsWith("/ws/refuse/")) {
            request.response().setStatusCode(Integer.parseInt(request.path().substring("/ws/refuse/".length())))
                    .end("no");
            return;
        }
        if (request.path().startsWith("/ws/paused")) {
            request.toWebSocket().onSuccess(this::readLater);
            return;
        }
        if (request.path().startsWith("/ws/raw/")) {
            BadServerFrames.serve(request, request.path().substring("/ws/raw/".length()), closes::add);
            return;
        }
        boolean strict = request.path().startsWith("/ws/strict");
        request.toWebSocket().onSuccess(socket -> echo(socket, strict));
    }

    /** A socket not read until {@link #resumeReading()}: a slow reader. It counts what it reads, and echoes nothing. */
    private void readLater(ServerWebSocket socket) {
        socket.pause();
        socket.frameHandler(frame -> bytesRead.addAndGet(frame.binaryData().length()));
        paused.add(socket);
    }

    private void echo(ServerWebSocket socket, boolean strict) {
        open.incrementAndGet();
        Utf8Text text = new Utf8Text();
        socket.pongHandler(pong -> pongs.add(pong.toString()));
        socket.frameHandler(frame -> {
            if (frame.isText() && frame.isFinal() && frame.textData().startsWith("close ")) {
                String[] parts = frame.textData().split(" ", 3);
                socket.close(Short.parseShort(parts[1]), parts[2]);
            } else if (frame.isText() && frame.isFinal() && frame.textData().startsWith("burst ")) {
                String[] parts = frame.textData().split(" ", 3);
                burst(socket);
                socket.close(Short.parseShort(parts[1]), parts[2]);
            } else if (frame.isText() && frame.isFinal() && frame.textData().startsWith("send ")) {
                FrameScript.send(socket, frame.textData().substring("send ".length()));
            } else if (strict && !text.valid(frame)) {
                socket.close((short) 1007, "not UTF-8");
            } else if (frame.type() == WebSocketFrameType.PING) {
                pings.add(frame.binaryData().toString()); // Vert.x answers it with a pong itself
            } else if (frame.isText() || frame.isBinary() || frame.isContinuation()) {
                socket.writeFrame(frame);
            }
        });
        socket.closeHandler(v -> {
            open.decrementAndGet();
            closes.add(socket.closeStatusCode() + " " + socket.closeReason());
        });
    }

    /** What {@code burst} sends before its close: the messages of issue 48's report. */
    private static void burst(ServerWebSocket socket) {
        socket.writeFrame(WebSocketFrame.textFrame("one ", false));
        socket.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer("two "), false));
        socket.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer("three"), true));
        socket.writeFinalBinaryFrame(Buffer.buffer(burstBytes()));
    }

    /** The binary message of {@code burst}: 1,000 bytes counting up. */
    public static byte[] burstBytes() {
        byte[] bytes = new byte[1000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    /** The port the echo listens on, for the same frames sent to it direct. */
    public int port() {
        return server.actualPort();
    }

    /** Handshakes received since the last {@link #reset()}, refused ones included. */
    public int handshakes() {
        return handshakes.get();
    }

    /** Sockets open now. */
    public int open() {
        return open.get();
    }

    /** The close code and reason of each socket that closed since the last reset, as {@code "<code> <reason>"}. */
    public List<String> closes() {
        return List.copyOf(closes);
    }

    /** Starts reading the sockets of {@code /ws/paused}. */
    public void resumeReading() {
        paused.forEach(ServerWebSocket::resume);
    }

    /** The payload bytes the sockets of {@code /ws/paused} have read. */
    public long bytesRead() {
        return bytesRead.get();
    }

    /** The payloads of the pings received since the last reset. */
    public List<String> pings() {
        return List.copyOf(pings);
    }

    /** The payloads of the pongs received since the last reset. */
    public List<String> pongs() {
        return List.copyOf(pongs);
    }

    /** The request target of the last handshake. */
    public String lastUri() {
        return lastUri;
    }

    /** The headers of the last handshake. */
    public MultiMap lastHeaders() {
        return lastHeaders;
    }

    /** Forgets the counts and closes (not the open sockets). */
    public void reset() {
        handshakes.set(0);
        closes.clear();
        pings.clear();
        pongs.clear();
    }

    /** The text message a socket is receiving, checked for UTF-8 once whole (a character may span fragments). */
    private static final class Utf8Text {

        private Buffer message;

        /** Whether the text message that {@code frame} ends, if it does, is UTF-8. */
        boolean valid(WebSocketFrame frame) {
            if (frame.isText()) {
                message = Buffer.buffer();
            }
            if (message == null || !(frame.isText() || frame.isContinuation())) {
                return true; // binary
            }
            message.appendBuffer(frame.binaryData());
            if (!frame.isFinal()) {
                return true;
            }
            Buffer whole = message;
            message = null;
            try {
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(whole.getBytes()));
                return true;
            } catch (CharacterCodingException notUtf8) {
                return false;
            }
        }
    }

    @Override
    public void stop() {
        if (vertx != null) {
            vertx.close();
        }
    }
}
