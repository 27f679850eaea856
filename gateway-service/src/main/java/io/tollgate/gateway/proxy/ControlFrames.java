package io.tollgate.gateway.proxy;

import java.util.ArrayDeque;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.buffer.Buffer;

/**
 * The ping and close frames of one side of a relayed WebSocket, taken from its connection's Netty pipeline just
 * before Vert.x's handler and handed to the relay in their place among the side's frames. Vert.x 4 answers both
 * itself the moment it reads one, with no option to do otherwise: a ping with a pong (the client would get the
 * gateway's pong and then the far end's), a close with the same code and the connection closed, ahead of frames it
 * has not delivered yet. Here a control frame waits until every frame read before it was delivered to the relay, and
 * is then the relay's to pass on. A frame the decoder refuses (longer than the limit, unmasked from a client, masked
 * from a server, a reserved opcode) reaches the relay as a close code to send, instead of an exception Vert.x would
 * answer with a reset; so does a frame with a reserved bit set (RSV1-3), which Vert.x would relay with the bit
 * dropped: the gateway negotiates no extension with an upstream, and an extension negotiated with a client (Vert.x's
 * per-message deflate) clears its bit before this handler. Runs on the connection's event loop.
 */
final class ControlFrames extends ChannelInboundHandlerAdapter {

    /** What a side tells its relay. */
    interface Events {

        /** {@code side} sent a ping with {@code payload}, after the frames before it. */
        void ping(SocketSide side, Buffer payload);

        /** A close frame of {@code side} was read; it may still wait for the frames before it. */
        void closeRead(SocketSide side);

        /** {@code side} sent a close frame with {@code payload} (code and reason as sent), after its other frames. */
        void closeFrame(SocketSide side, Buffer payload);

        /** {@code side} broke the protocol: none of its frames is relayed any more, and it is due {@code code}. */
        void refused(SocketSide side, short code, String reason);
    }

    /** A control frame read after the {@code mark}-th data or pong frame. */
    private record Held(long mark, boolean close, Buffer payload) {
    }

    private final SocketSide side;
    private final ArrayDeque<Held> held = new ArrayDeque<>(2);
    private Events events;
    private long passed;
    private long delivered;
    private boolean closeRead;
    private boolean refused;
    /** A refusal that came before the relay listened, told when it does. */
    private CorruptedWebSocketFrameException refusal;

    ControlFrames(SocketSide side) {
        this.side = side;
    }

    /** From now on {@code events} hears of this side's control frames and refused frames. */
    void listen(Events events) {
        this.events = events;
        tellRefusal();
        if (closeRead) {
            events.closeRead(side);
        }
        release();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused || msg instanceof WebSocketFrame frame && frame.rsv() != 0) {
            ReferenceCountUtil.release(msg);
            if (!refused) {
                refuse(ctx, new CorruptedWebSocketFrameException(WebSocketCloseStatus.PROTOCOL_ERROR,
                        "RSV != 0 and no extension negotiated"));
            }
            return;
        }
        if (msg instanceof PingWebSocketFrame || msg instanceof CloseWebSocketFrame) {
            WebSocketFrame frame = (WebSocketFrame) msg;
            hold(frame instanceof CloseWebSocketFrame, Buffer.buffer(frame.content().copy()));
            frame.release();
            return;
        }
        if (msg instanceof WebSocketFrame) {
            passed++;
        }
        ctx.fireChannelRead(msg);
    }

    private void hold(boolean close, Buffer payload) {
        if (closeRead || refused) {
            return; // nothing follows a close (RFC 6455 §5.5.1)
        }
        Held last = held.peekLast();
        if (!close && last != null && !last.close() && last.mark() == passed) {
            held.pollLast(); // pings back to back while the relay waits: the latest stands for them (§5.5.3)
        }
        held.add(new Held(passed, close, payload));
        if (close) {
            closeRead = true;
            if (events != null) {
                events.closeRead(side);
            }
        }
        release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException corrupt) {
            refuse(ctx, corrupt); // the decoder now drops what it reads
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    /** A frame that breaks RFC 6455: nothing more of this side is relayed, and it is due a close with the code. */
    private void refuse(ChannelHandlerContext ctx, CorruptedWebSocketFrameException corrupt) {
        refused = true;
        refusal = corrupt;
        held.clear();
        ctx.channel().config().setAutoRead(true); // read to the end, so that closing later sends no reset
        tellRefusal();
    }

    private void tellRefusal() {
        if (events != null && refusal != null) {
            events.refused(side, (short) refusal.closeStatus().code(), refusal.getMessage());
            refusal = null;
        }
    }

    /** Vert.x delivered one more of this side's frames to the relay. */
    void delivered() {
        delivered++;
        release();
    }

    private void release() {
        while (events != null && !held.isEmpty() && held.peekFirst().mark() <= delivered) {
            Held next = held.pollFirst();
            if (next.close()) {
                events.closeFrame(side, next.payload());
            } else {
                events.ping(side, next.payload());
            }
        }
    }

    /** Whether a close frame from this side was read and waits for the frames before it to be relayed. */
    boolean closeHeld() {
        return closeRead && !held.isEmpty();
    }
}
