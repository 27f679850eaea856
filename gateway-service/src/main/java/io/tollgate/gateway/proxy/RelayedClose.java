package io.tollgate.gateway.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * The close handshake of one relayed WebSocket (RFC 6455 §7), relayed, not answered: a side's close frame goes to the
 * other side after every frame sent before it, and the other side's close comes back the same way; the gateway
 * closes the client's connection once both closes passed, and the upstream closes its own. The gateway closes a
 * socket itself only with a code that says why: 1001 when a side drops its connection (to the other), on the idle
 * timeout, on shutdown, or when the other side's close does not come within the close timeout; the decoder's code
 * for a frame it refuses (1002, 1009), and 1009 for a message over the limit. The close timeout runs from the first
 * close read or sent: a close that waits behind frames the other side does not read is given up on as one that is
 * not answered. {@link AnswerWatcher#ended} comes once, however the socket ends. Runs on the client connection's
 * event loop.
 */
final class RelayedClose {

    static final short GOING_AWAY = 1001;
    static final short TOO_BIG = 1009;

    private final Vertx vertx;
    private final SocketSide client;
    private final SocketSide upstream;
    private final AnswerWatcher watcher;
    private final long closeTimeoutMs;
    private final Runnable onEnd;
    private long closeTimer = -1;
    private boolean ended;

    RelayedClose(Vertx vertx, WebSocketConfig config, SocketSide client, SocketSide upstream, AnswerWatcher watcher,
            Runnable onEnd) {
        this.vertx = vertx;
        this.client = client;
        this.upstream = upstream;
        this.watcher = watcher;
        this.closeTimeoutMs = Math.max(1, config.closeTimeout().toMillis());
        this.onEnd = onEnd;
    }

    /** Closes both sides with 1001 and {@code reason} (the idle timeout, the gateway stopping). */
    void goAway(String reason) {
        client.sendClose(GOING_AWAY, reason);
        upstream.sendClose(GOING_AWAY, reason);
        closing();
        end();
    }

    /** A side's close was read: from here the close timeout runs, even while the close waits behind frames. */
    void closeRead() {
        closing();
    }

    /** {@code from}'s close, after its frames: to the other side, or, if that one closed first, its answer. */
    void closeFrame(SocketSide from, Buffer payload) {
        from.closeReceived = true;
        other(from).sendClose(payload);
        closing();
        settle();
    }

    /**
     * {@code from} sent what the gateway does not relay: both sides are closed with {@code code}; an
     * {@code unreadable} side (its decoder refused a frame) has its output ended once its close is written.
     */
    void refuse(SocketSide from, short code, String reason, boolean unreadable) {
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
    void gone(SocketSide side) {
        side.gone = true;
        if (!side.closeHeld()) {
            other(side).sendClose(GOING_AWAY, "the other side went away");
            closing();
        }
        settle();
    }

    /** Whether the socket ended: its watcher was told, and nothing more is relayed. */
    boolean ended() {
        return ended;
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

    /** A close was read or sent: the rest of the handshake gets the close timeout at most. */
    private void closing() {
        if (closeTimer < 0) {
            closeTimer = vertx.setTimer(closeTimeoutMs, t -> closeTimedOut());
        }
    }

    /**
     * The close timeout: each side not yet sent a close gets 1001, then both connections close at once, whether or
     * not their peers read what is still on its way to them.
     */
    private void closeTimedOut() {
        // both closes first: a connection closing here must not make the other side's close "went away"
        client.sendClose(GOING_AWAY, "close timeout");
        upstream.sendClose(GOING_AWAY, "close timeout");
        for (SocketSide side : new SocketSide[]{client, upstream}) {
            if (!side.gone) {
                side.closeConnectionNow();
            }
        }
        end();
    }

    private SocketSide other(SocketSide side) {
        return side == client ? upstream : client;
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        watcher.ended(true);
        onEnd.run();
    }
}
