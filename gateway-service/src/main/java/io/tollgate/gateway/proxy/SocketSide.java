package io.tollgate.gateway.proxy;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.WebSocketInternal;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * One side of a relayed WebSocket, seen from its connection's Netty pipeline just before Vert.x's handler, and its
 * part of the close handshake. Vert.x 4 answers a close frame itself the moment it reads one (the same code echoed,
 * then the connection closed), ahead of frames it has not delivered yet and with no option to do otherwise; so the
 * side takes the close frame before Vert.x sees it and hands it to the relay once every frame read before it was
 * delivered. A frame the decoder refuses (longer than the limit, unmasked from a client) reaches the relay as a close
 * code to send instead of an exception Vert.x would answer with a reset. Runs on the connection's event loop.
 */
final class SocketSide extends ChannelInboundHandlerAdapter {

    /** What a side tells its relay. */
    interface Events {

        /** {@code side} sent a close frame with {@code payload} (code and reason as sent), after its other frames. */
        void closeFrame(SocketSide side, Buffer payload);

        /** {@code side} sent a frame its decoder refused; it reads nothing more, and is due a close with {@code code}. */
        void refused(SocketSide side, short code, String reason);
    }

    /** The longest close reason (RFC 6455 §5.5: a control frame's payload is at most 125 bytes). */
    private static final int MAX_REASON = 123;

    final WebSocketBase socket;
    final String name;
    boolean closeSent;
    boolean closeReceived;
    boolean gone;
    /** The bytes of the message this side is sending so far. */
    long messageBytes;
    private final ChannelHandlerContext vertx;
    private ChannelHandlerContext own;
    private Events events;
    private long passed;
    private long delivered;
    private Buffer heldClose;
    private Future<Void> closeWritten = Future.succeededFuture();
    private boolean closingConnection;

    private SocketSide(WebSocketBase socket, ChannelHandlerContext vertx, String name) {
        this.socket = socket;
        this.name = name;
        this.vertx = vertx;
        vertx.pipeline().addBefore(vertx.name(), "tollgate-websocket-side", this);
    }

    /** The client's side: {@code socket} on {@code connection} (Vert.x Web wraps the socket, so it names neither). */
    static SocketSide client(WebSocketBase socket, HttpConnection connection) {
        return new SocketSide(socket, ((ConnectionBase) connection).channelHandlerContext(), "client");
    }

    /** The upstream's side. */
    static SocketSide upstream(WebSocketBase socket) {
        return new SocketSide(socket, ((WebSocketInternal) socket).channelHandlerContext(), "upstream");
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        own = ctx;
    }

    /** From now on {@code events} hears of this side's close and refused frames. */
    void listen(Events events) {
        this.events = events;
        closeIfDue();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof CloseWebSocketFrame close) {
            heldClose = Buffer.buffer(close.content().copy());
            close.release();
            closeIfDue();
            return;
        }
        if (msg instanceof WebSocketFrame) {
            passed++;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException refused && events != null) {
            // the decoder now drops what it reads: keep reading, so that closing later sends no reset
            ctx.channel().config().setAutoRead(true);
            events.refused(this, (short) refused.closeStatus().code(), refused.getMessage());
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    /** Vert.x delivered one more of this side's frames to the relay. */
    void delivered() {
        delivered++;
        closeIfDue();
    }

    private void closeIfDue() {
        if (heldClose != null && events != null && delivered >= passed) {
            Buffer payload = heldClose;
            heldClose = null;
            closeReceived = true;
            events.closeFrame(this, payload);
        }
    }

    /** Whether a close frame from this side was read and waits for the frames before it to be relayed. */
    boolean closeHeld() {
        return heldClose != null;
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
