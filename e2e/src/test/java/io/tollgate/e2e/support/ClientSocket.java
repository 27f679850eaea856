package io.tollgate.e2e.support;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One WebSocket through the JDK's client: what a WebSocket client of the gateway sees. It opens with the headers
 * given, keeps each whole message it receives, and ends either way a client can: with a close frame
 * ({@link #closeNormally}) or by cutting its connection without one ({@link #abort}). A handshake answered with
 * anything but 101 is a {@link Refused}, which carries that answer.
 */
public final class ClientSocket implements AutoCloseable {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Listener listener;
    private final WebSocket socket;

    private ClientSocket(Listener listener, WebSocket socket) {
        this.listener = listener;
        this.socket = socket;
    }

    /** Opens a socket to {@code url} ({@code http://} or {@code ws://}) with {@code headers}. */
    public static ClientSocket open(String url, Map<String, String> headers) {
        WebSocket.Builder builder = CLIENT.newWebSocketBuilder().connectTimeout(WAIT);
        headers.forEach(builder::header);
        Listener listener = new Listener();
        URI uri = URI.create(url.replaceFirst("^http", "ws"));
        try {
            return new ClientSocket(listener, await(builder.buildAsync(uri, listener)));
        } catch (IllegalStateException failed) {
            if (failed.getCause() instanceof WebSocketHandshakeException refused) {
                throw new Refused(url, refused.getResponse());
            }
            throw failed;
        }
    }

    /** The answer that refuses a handshake to {@code url} with {@code headers}; fails when the socket opens. */
    public static HttpResponse<?> refusal(String url, Map<String, String> headers) {
        try {
            open(url, headers).abort();
        } catch (Refused refused) {
            return refused.response();
        }
        throw new IllegalStateException("the WebSocket handshake to " + url + " was accepted");
    }

    /** Sends {@code text} as one message and returns the next whole message received, which must be text. */
    public String exchange(String text) {
        await(socket.sendText(text, true));
        return (String) next();
    }

    /** Sends {@code bytes} as one binary message and returns the next whole message received, which must be binary. */
    public byte[] exchange(byte[] bytes) {
        await(socket.sendBinary(ByteBuffer.wrap(bytes), true));
        return (byte[]) next();
    }

    /** Cuts the connection at once, without a close frame, as a client that crashes or loses its network. */
    public void abort() {
        socket.abort();
    }

    /** Sends a close frame (1000) and returns the code of the close frame that answers it. */
    public int closeNormally() {
        await(socket.sendClose(WebSocket.NORMAL_CLOSURE, "done"));
        return await(listener.closed);
    }

    /** Cuts whatever is left of the socket: the clean-up after a test, however the test ended it. */
    @Override
    public void close() {
        socket.abort();
    }

    private Object next() {
        try {
            Object message = listener.messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (message == null) {
                throw new IllegalStateException("no message within " + WAIT);
            }
            return message;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static <T> T await(Future<T> pending) {
        try {
            return pending.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().toString(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + WAIT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A handshake answered with anything but 101: {@link #response} is that answer (its status and headers). */
    public static final class Refused extends RuntimeException {

        private final transient HttpResponse<?> response;

        Refused(String url, HttpResponse<?> response) {
            super("the WebSocket handshake to " + url + " was answered " + response.statusCode() + ": "
                    + response.body());
            this.response = response;
        }

        public HttpResponse<?> response() {
            return response;
        }
    }

    /** Joins each message's parts and queues it whole: a String for text, a byte[] for binary. */
    private static final class Listener implements WebSocket.Listener {

        private final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        private final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket socket, CharSequence part, boolean last) {
            text.append(part);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            socket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer part, boolean last) {
            byte[] bytes = new byte[part.remaining()];
            part.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            socket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket socket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket socket, Throwable error) {
            closed.completeExceptionally(error);
        }
    }
}
