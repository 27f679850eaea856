package io.tollgate.gateway.proxy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketFrame;

/**
 * One relayed WebSocket: the client's socket and the upstream's, each frame written to the other side as it came
 * (text, binary and continuation frames, a fragmented message frame by frame; pings and pongs), the reader paused
 * while the writer's queue is full. A ping is the other end's to answer: the gateway answers none, so the pong a
 * side gets is the other end's, one per ping, as direct. {@link RelayedClose} carries the close handshake, and
 * ends the socket on the idle timeout. Everything runs on the client connection's event loop, where the upstream
 * connection lives too.
 */
final class RelayedSocket implements ControlFrames.Events {

    private final Vertx vertx;
    private final SocketSide client;
    private final SocketSide upstream;
    private final RelayedClose close;
    private final long idleNanos;
    private final long maxMessageBytes;
    private final Context context;
    private long lastFrameNanos = System.nanoTime();
    private long idleTimer = -1;

    RelayedSocket(Vertx vertx, WebSocketConfig config, SocketSide client, SocketSide upstream, AnswerWatcher watcher,
            Runnable onEnd) {
        this.vertx = vertx;
        this.client = client;
        this.upstream = upstream;
        this.close = new RelayedClose(vertx, config, client, upstream, watcher, () -> {
            if (idleTimer >= 0) {
                vertx.cancelTimer(idleTimer);
            }
            onEnd.run();
        });
        this.idleNanos = config.idleTimeout().toNanos();
        this.maxMessageBytes = config.maxMessageSize().asLongValue();
        this.context = Vertx.currentContext();
    }

    /** Starts relaying both ways and the idle watch. */
    void start() {
        client.gatherFlushes();
        upstream.gatherFlushes();
        pipe(client, upstream);
        pipe(upstream, client);
        client.listen(this);
        upstream.listen(this);
        if (idleNanos > 0) {
            idleTimer = vertx.setTimer(idleNanos / 1_000_000L, this::idleCheck);
        }
    }

    /**
     * Closes both sides with 1001 and {@code reason} (the gateway stopping), from any thread, on the socket's own
     * event loop; completes once both closes are sent.
     */
    Future<Void> goAwayFromElsewhere(String reason) {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            close.goAway(reason);
            done.complete();
        });
        return done.future();
    }

    private void pipe(SocketSide from, SocketSide to) {
        from.socket.frameHandler(frame -> {
            relay(frame, from, to);
            from.delivered(); // a ping or close held back for this frame follows it
        });
        from.socket.closeHandler(v -> close.gone(from));
        from.socket.exceptionHandler(err -> close.gone(from));
    }

    private void relay(WebSocketFrame frame, SocketSide from, SocketSide to) {
        if (to.closeSent || to.gone) {
            return; // RFC 6455 §5.5.1: nothing follows a close
        }
        if (frame.isText() || frame.isBinary()) {
            from.messageBytes = 0;
        }
        if (frame.isText() || frame.isBinary() || frame.isContinuation()) {
            from.messageBytes += frame.binaryData().length();
            if (from.messageBytes > maxMessageBytes) {
                close.refuse(from, RelayedClose.TOO_BIG, "message over " + maxMessageBytes + " bytes", false);
                return;
            }
        }
        write(frame, from, to);
    }

    private void write(WebSocketFrame frame, SocketSide from, SocketSide to) {
        lastFrameNanos = System.nanoTime();
        to.socket.writeFrame(frame);
        if (to.socket.writeQueueFull()) {
            from.socket.pause();
            to.socket.drainHandler(v -> from.socket.resume());
        }
    }

    @Override
    public void ping(SocketSide from, Buffer payload) {
        SocketSide to = other(from);
        if (!to.closeSent && !to.gone) {
            write(WebSocketFrame.pingFrame(payload), from, to);
        }
    }

    @Override
    public void closeRead(SocketSide from) {
        close.closeRead();
    }

    @Override
    public void closeFrame(SocketSide from, Buffer payload) {
        close.closeFrame(from, payload);
    }

    @Override
    public void refused(SocketSide from, short code, String reason) {
        close.refuse(from, code, reason, true);
    }

    private SocketSide other(SocketSide side) {
        return side == client ? upstream : client;
    }

    private void idleCheck(long timer) {
        long idle = System.nanoTime() - lastFrameNanos;
        if (close.ended()) {
            return;
        }
        if (idle >= idleNanos) {
            close.goAway("idle timeout");
        } else {
            idleTimer = vertx.setTimer(Math.max(1, (idleNanos - idle) / 1_000_000L), this::idleCheck);
        }
    }
}
