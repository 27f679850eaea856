package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;

/**
 * A WebSocket client for tests: Vert.x's, on a Vert.x of its own (closed with it), and a raw one for what a library
 * hides (a refused upgrade, a dropped TCP connection).
 */
public final class WebSockets implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final WebSocketClient client = vertx.createWebSocketClient();
    private final WebSocketClient compressing = vertx.createWebSocketClient(new WebSocketClientOptions()
            .setTryUsePerMessageCompression(true));

    @Override
    public void close() {
        vertx.close();
    }

    /** Opens a socket to the gateway on {@code port}, with {@code apiKey} and the {@code subprotocols} offered. */
    public WebSocket open(int port, String uri, String apiKey, List<String> subprotocols)
            throws InterruptedException, ExecutionException, TimeoutException {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI(uri).addHeader("X-API-Key", apiKey);
        if (!subprotocols.isEmpty()) {
            options.setSubProtocols(subprotocols);
        }
        return client.connect(options).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A socket, and the extensions its handshake's answer accepted. */
    public record Extended(WebSocket socket, String extensions) {
    }

    /** Opens a socket as {@link #open} does, offering per-message deflate (RFC 7692). */
    public Extended openCompressed(int port, String uri, String apiKey)
            throws InterruptedException, ExecutionException, TimeoutException {
        return compressing.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI(uri)
                .addHeader("X-API-Key", apiKey))
                .map(socket -> new Extended(socket, socket.headers().get("Sec-WebSocket-Extensions")))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * Opens a socket as {@link #open} does and writes {@code total} bytes to it in binary frames of {@code frame}
     * bytes, each as soon as the socket's write queue has room; {@code sent} counts the bytes written so far.
     */
    public void send(int port, String uri, String apiKey, long total, int frame, AtomicLong sent) {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI(uri).addHeader("X-API-Key", apiKey);
        Buffer chunk = Buffer.buffer(new byte[frame]);
        client.connect(options).onSuccess(socket -> pump(socket, chunk, total, sent));
    }

    private static void pump(WebSocket socket, Buffer chunk, long total, AtomicLong sent) {
        while (!socket.writeQueueFull() && sent.get() < total) {
            socket.writeFinalBinaryFrame(chunk);
            sent.addAndGet(chunk.length());
        }
        if (sent.get() < total) {
            socket.drainHandler(v -> pump(socket, chunk, total, sent));
        }
    }

    /** Completes with {@code "<code> <reason>"} once {@code socket} is closed. */
    public static CompletableFuture<String> closing(WebSocket socket) {
        CompletableFuture<String> closed = new CompletableFuture<>();
        socket.closeHandler(v -> closed.complete(socket.closeStatusCode() + " " + socket.closeReason()));
        return closed;
    }

    /** A frame as {@code "<TYPE> fin|more <text, or hex for binary>"}. */
    public static String describe(WebSocketFrame frame) {
        String data = frame.isBinary()
                ? HexFormat.of().formatHex(frame.binaryData().getBytes())
                : frame.binaryData().toString();
        return frame.type() + (frame.isFinal() ? " fin " : " more ") + data;
    }

    /** The next {@code n} items of {@code queue}, waiting at most 10 s for each. */
    public static List<String> take(BlockingQueue<String> queue, int n) throws InterruptedException {
        List<String> taken = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String next = queue.poll(10, TimeUnit.SECONDS);
            if (next == null) {
                break;
            }
            taken.add(next);
        }
        return taken;
    }

    /** A handshake sent on a plain socket, and the answer's head; the socket stays open (the caller closes it). */
    public record Raw(Socket socket, RawHttp.Answer answer) {
    }

    /** Sends an upgrade of {@code path} with {@code apiKey} on a new connection and reads the answer's head. */
    public static Raw rawUpgrade(int port, String path, String apiKey) throws IOException {
        return rawUpgrade(port, path, apiKey, 0);
    }

    /** {@link #rawUpgrade} on a socket whose receive buffer is {@code receiveBufferBytes}, unless 0. */
    static Raw rawUpgrade(int port, String path, String apiKey, int receiveBufferBytes) throws IOException {
        Socket socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes); // before connecting: the window offered depends on it
        }
        socket.setSoTimeout(10_000);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "X-API-Key: " + apiKey + "\r\n\r\n").getBytes(US_ASCII));
        return new Raw(socket, RawHttp.read(socket.getInputStream()));
    }

    /** The answer to an upgrade sent as {@link #rawUpgrade} does, its connection closed after. */
    public static RawHttp.Answer upgradeAnswer(int port, String path, String apiKey) throws IOException {
        Raw raw = rawUpgrade(port, path, apiKey);
        try (Socket socket = raw.socket()) {
            return raw.answer();
        }
    }
}
