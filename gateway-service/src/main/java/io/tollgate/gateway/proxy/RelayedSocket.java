package io.tollgate.gateway.proxy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrame;

/**
 * One relayed WebSocket: the client's socket and the upstream's, each frame written to the other side as it came
 * (text, binary, continuation, ping and pong), the reader paused while the writer's queue is full. A close from
 * either side, with its code and reason, closes the other; a side that drops its connection closes the other with
 * 1001; so does the idle timeout, and the gateway stopping. {@link AnswerWatcher#ended} comes once, however it
 * ends. Everything runs on the client connection's event loop, where the upstream connection lives too.
 */
final class RelayedSocket {

    /** Codes that RFC 6455 §7.4.1 reserves for reporting, never sent in a close frame. */
    private static final short NO_STATUS = 1005;
    private static final short ABNORMAL = 1006;
    private static final short TLS_FAILED = 1015;
    static final short GOING_AWAY = 1001;

    private final Vertx vertx;
    private final WebSocketBase client;
    private final WebSocketBase upstream;
    private final AnswerWatcher watcher;
    private final long idleNanos;
    private final Runnable onEnd;
    private final Context context;
    private long lastFrameNanos = System.nanoTime();
    private long idleTimer = -1;
    private boolean ended;

    RelayedSocket(Vertx vertx, WebSocketBase client, WebSocketBase upstream, AnswerWatcher watcher, long idleMs,
            Runnable onEnd) {
        this.vertx = vertx;
        this.client = client;
        this.upstream = upstream;
        this.watcher = watcher;
        this.idleNanos = idleMs * 1_000_000L;
        this.onEnd = onEnd;
        this.context = Vertx.currentContext();
    }

    /** Starts relaying both ways and the idle watch. */
    void start() {
        Flushes.gather(client);
        Flushes.gather(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
        client.closeHandler(v -> closed(client, upstream));
        upstream.closeHandler(v -> closed(upstream, client));
        client.exceptionHandler(err -> closed(client, upstream));
        upstream.exceptionHandler(err -> closed(upstream, client));
        if (idleNanos > 0) {
            idleTimer = vertx.setTimer(idleNanos / 1_000_000L, this::idleCheck);
        }
    }

    /** Closes both sides with 1001 and {@code reason} (the idle timeout, the gateway stopping). */
    void goAway(String reason) {
        if (!ended) {
            end();
            close(client, GOING_AWAY, reason);
            close(upstream, GOING_AWAY, reason);
        }
    }

    /** {@link #goAway} from any thread, run on the socket's own event loop; completes once both closes are sent. */
    Future<Void> goAwayFromElsewhere(String reason) {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            goAway(reason);
            done.complete();
        });
        return done.future();
    }

    private void pipe(WebSocketBase from, WebSocketBase to) {
        from.frameHandler(frame -> relay(frame, from, to));
    }

    private void relay(WebSocketFrame frame, WebSocketBase from, WebSocketBase to) {
        if (frame.isClose()) {
            closed(from, to); // at once, not when the connection closes after it (Vert.x has read its code)
            return;
        }
        if (to.isClosed()) {
            return;
        }
        lastFrameNanos = System.nanoTime();
        to.writeFrame(frame);
        if (to.writeQueueFull()) {
            from.pause();
            to.drainHandler(v -> from.resume());
        }
    }

    /** {@code side} closed (a close frame, its connection dropped, or broken): the other side closes likewise. */
    private void closed(WebSocketBase side, WebSocketBase other) {
        if (ended) {
            return;
        }
        end();
        Short code = side.closeStatusCode();
        if (code == null || code == ABNORMAL || code == TLS_FAILED) {
            close(other, GOING_AWAY, "the other side went away");
        } else if (code == NO_STATUS) {
            close(other, (short) 1000, null);
        } else {
            close(other, code, side.closeReason());
        }
    }

    private void idleCheck(long timer) {
        long idle = System.nanoTime() - lastFrameNanos;
        if (ended) {
            return;
        }
        if (idle >= idleNanos) {
            goAway("idle timeout");
        } else {
            idleTimer = vertx.setTimer(Math.max(1, (idleNanos - idle) / 1_000_000L), this::idleCheck);
        }
    }

    private void end() {
        ended = true;
        if (idleTimer >= 0) {
            vertx.cancelTimer(idleTimer);
        }
        watcher.ended(true);
        onEnd.run();
    }

    private static void close(WebSocketBase side, short code, String reason) {
        if (!side.isClosed()) {
            side.close(code, reason);
        }
    }
}
