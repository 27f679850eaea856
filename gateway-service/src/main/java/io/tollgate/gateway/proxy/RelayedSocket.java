package io.tollgate.gateway.proxy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketFrame;

/**
 * One relayed WebSocket: the client's socket and the upstream's, each frame written to the other side as it came
 * (text, binary, continuation, ping and pong), the reader paused while the writer's queue is full. The close
 * handshake is relayed, not answered: a side's close frame goes to the other side after every frame sent before it,
 * and the other side's close comes back the same way; the gateway closes the client's connection once both closes
 * passed, and the upstream closes its own. The gateway closes a socket itself only with a code that says why: 1001
 * when a side drops its connection (to the other), on the idle timeout, on shutdown, or when the other side's close
 * does not come within the close timeout; the decoder's code for a frame it refuses (1002, 1009), and 1009 for a
 * message over the limit. {@link AnswerWatcher#ended} comes once, however it ends. Everything runs on the client
 * connection's event loop, where the upstream connection lives too.
 */
final class RelayedSocket implements SocketSide.Events {

    static final short GOING_AWAY = 1001;
    static final short TOO_BIG = 1009;

    private final Vertx vertx;
    private final SocketSide client;
    private final SocketSide upstream;
    private final AnswerWatcher watcher;
    private final long idleNanos;
    private final long closeTimeoutMs;
    private final long maxMessageBytes;
    private final Runnable onEnd;
    private final Context context;
    private long lastFrameNanos = System.nanoTime();
    private long idleTimer = -1;
    private long closeTimer = -1;
    private boolean ended;

    RelayedSocket(Vertx vertx, WebSocketConfig config, SocketSide client, SocketSide upstream, AnswerWatcher watcher,
            Runnable onEnd) {
        this.vertx = vertx;
        this.client = client;
        this.upstream = upstream;
        this.watcher = watcher;
        this.idleNanos = config.idleTimeout().toNanos();
        this.closeTimeoutMs = Math.max(1, config.closeTimeout().toMillis());
        this.maxMessageBytes = config.maxMessageSize().asLongValue();
        this.onEnd = onEnd;
        this.context = Vertx.currentContext();
    }

    /** Starts relaying both ways and the idle watch. */
    void start() {
        Flushes.gather(client.socket);
        Flushes.gather(upstream.socket);
        pipe(client, upstream);
        pipe(upstream, client);
        client.listen(this);
        upstream.listen(this);
        if (idleNanos > 0) {
            idleTimer = vertx.setTimer(idleNanos / 1_000_000L, this::idleCheck);
        }
    }

    /** Closes both sides with 1001 and {@code reason} (the idle timeout, the gateway stopping). */
    void goAway(String reason) {
        client.sendClose(GOING_AWAY, reason);
        upstream.sendClose(GOING_AWAY, reason);
        closing();
        end();
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

    private void pipe(SocketSide from, SocketSide to) {
        from.socket.frameHandler(frame -> {
            relay(frame, from, to);
            from.delivered(); // a close held back for this frame follows it
        });
        from.socket.closeHandler(v -> gone(from, to));
        from.socket.exceptionHandler(err -> gone(from, to));
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
                refuse(from, TOO_BIG, "message over " + maxMessageBytes + " bytes", false);
                return;
            }
        }
        lastFrameNanos = System.nanoTime();
        to.socket.writeFrame(frame);
        if (to.socket.writeQueueFull()) {
            from.socket.pause();
            to.socket.drainHandler(v -> from.socket.resume());
        }
    }

    /** {@code from}'s close, after its frames: to the other side, or, if that one closed first, its answer. */
    @Override
    public void closeFrame(SocketSide from, Buffer payload) {
        other(from).sendClose(payload);
        closing();
        settle();
    }

    @Override
    public void refused(SocketSide from, short code, String reason) {
        refuse(from, code, reason, true);
    }

    /** {@code from} sent what the gateway does not relay: both sides are closed with {@code code}. */
    private void refuse(SocketSide from, short code, String reason, boolean unreadable) {
        from.sendClose(code, reason);
        other(from).sendClose(code, "the " + from.name + " was refused: " + reason);
        if (unreadable) {
            from.endOutput(); // its answer cannot be read: its connection ends when it closes its own, or on time
        }
        closing();
        end();
        settle();
    }

    /** {@code side}'s connection closed: the other side is told 1001, unless a close already went to it. */
    private void gone(SocketSide side, SocketSide other) {
        side.gone = true;
        if (!side.closeHeld()) {
            other.sendClose(GOING_AWAY, "the other side went away");
            closing();
        }
        settle();
    }

    /** Closes the client's connection once both its closes passed, and ends the relay once both sides are done. */
    private void settle() {
        if (client.closeSent && client.closeReceived && !client.gone) { // the server closes first (RFC 6455 §7.1.1)
            client.closeConnection();
        }
        if (done(client) && done(upstream)) {
            end();
        }
        if (client.gone && upstream.gone && closeTimer >= 0) {
            vertx.cancelTimer(closeTimer);
        }
    }

    private static boolean done(SocketSide side) {
        return side.gone || side.closeSent && side.closeReceived;
    }

    /** A close was sent: the other side's close is awaited for the close timeout at most. */
    private void closing() {
        if (closeTimer < 0) {
            closeTimer = vertx.setTimer(closeTimeoutMs, t -> closeTimedOut());
        }
    }

    /** The close timeout: each side not yet sent a close gets 1001, then both connections close. */
    private void closeTimedOut() {
        // both closes first: a connection closing here must not make the other side's close "went away"
        client.sendClose(GOING_AWAY, "close timeout");
        upstream.sendClose(GOING_AWAY, "close timeout");
        for (SocketSide side : new SocketSide[]{client, upstream}) {
            if (!side.gone) {
                side.closeConnection();
            }
        }
        end();
    }

    private SocketSide other(SocketSide side) {
        return side == client ? upstream : client;
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
        if (ended) {
            return;
        }
        ended = true;
        if (idleTimer >= 0) {
            vertx.cancelTimer(idleTimer);
        }
        watcher.ended(true);
        onEnd.run();
    }
}
