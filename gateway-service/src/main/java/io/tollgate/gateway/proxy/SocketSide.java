package io.tollgate.gateway.proxy;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.WebSocketInternal;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * One side of a relayed WebSocket: its socket, where it stands in the close handshake, and the writes that end it.
 * Its ping and close frames come to the relay through {@link ControlFrames}, in its connection's pipeline, and not
 * through Vert.x, which would answer them itself. Runs on the connection's event loop.
 */
final class SocketSide {

    /** The longest close reason (RFC 6455 §5.5: a control frame's payload is at most 125 bytes). */
    private static final int MAX_REASON = 123;

    final WebSocketBase socket;
    final String name;
    boolean closeSent;
    boolean closeReceived;
    boolean gone;
    /** The bytes of the message this side is sending so far. */
    long messageBytes;
    /** Vert.x's handler in the connection's pipeline. */
    private final ChannelHandlerContext vertx;
    private final ControlFrames control;
    /** The control frames' handler, just before Vert.x's: a close from here passes no handler of Vert.x. */
    private final ChannelHandlerContext own;
    private Future<Void> closeWritten = Future.succeededFuture();
    private boolean closingConnection;

    private SocketSide(WebSocketBase socket, ChannelHandlerContext vertx, String name) {
        this.socket = socket;
        this.name = name;
        this.vertx = vertx;
        this.control = new ControlFrames(this);
        vertx.pipeline().addBefore(vertx.name(), "tollgate-websocket-control", control);
        this.own = vertx.pipeline().context(control);
    }

    /** The client's side: {@code socket} on {@code connection} (Vert.x Web wraps the socket, so it names neither). */
    static SocketSide client(WebSocketBase socket, HttpConnection connection) {
        return new SocketSide(socket, ((ConnectionBase) connection).channelHandlerContext(), "client");
    }

    /** The upstream's side. */
    static SocketSide upstream(WebSocketBase socket) {
        return new SocketSide(socket, ((WebSocketInternal) socket).channelHandlerContext(), "upstream");
    }

    /** From now on {@code events} hears of this side's control frames and refused frames. */
    void listen(ControlFrames.Events events) {
        control.listen(events);
    }

    /** Gathers the flushes of this side's connection ({@link Flushes}). */
    void gatherFlushes() {
        Flushes.gather(vertx);
    }

    /** Vert.x delivered one more of this side's frames to the relay. */
    void delivered() {
        control.delivered();
    }

    /** Whether a close frame from this side was read and waits for the frames before it to be relayed. */
    boolean closeHeld() {
        return control.closeHeld();
    }

    /** Sends this side a close frame with {@code payload} as it came from the other side, once. */
    void sendClose(Buffer payload) {
        if (!closeSent && !gone) {
            closeSent = true;
            closeWritten = socket.writeFrame(new WebSocketFrameImpl(WebSocketFrameType.CLOSE, payload.getByteBuf()));
        }
    }

    /** Sends this side a close frame with {@code code} and {@code reason}, once. */
    void sendClose(short code, String reason) {
        sendClose(payload(code, reason));
    }

    /** Closes this side's connection once the close frame sent to it is written. */
    void closeConnection() {
        if (!closingConnection) {
            closingConnection = true;
            // from here, not the channel's tail: Vert.x's handler would make it a close frame (1000) of its own
            closeWritten.onComplete(written -> own.close());
        }
    }

    /**
     * Closes this side's connection now, with what was written to it flushed as far as its peer reads: the close
     * timeout, where a close frame that its peer does not read must not hold the connection open.
     */
    void closeConnectionNow() {
        closingConnection = true;
        own.flush();
        own.close();
    }

    /**
     * Ends this side's output once the close frame sent to it is written, while its input is still read to the
     * end: a peer that goes on sending (the rest of a refused frame) gets no reset, and sees the close then the end.
     */
    void endOutput() {
        closeWritten.onComplete(written -> {
            if (vertx.channel() instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
            } else {
                own.close();
            }
        });
    }

    /** A close frame's payload: the code, and the reason in UTF-8 cut to what a control frame holds. */
    static Buffer payload(short code, String reason) {
        Buffer payload = Buffer.buffer().appendShort(code);
        byte[] text = reason == null ? new byte[0] : reason.getBytes(UTF_8);
        int length = Math.min(text.length, MAX_REASON);
        while (length < text.length && length > 0 && (text[length] & 0xC0) == 0x80) {
            length--; // not inside a character
        }
        return payload.appendBytes(text, 0, length);
    }
}
