package io.tollgate.gateway.proxy;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Flushes gathered on a connection the gateway writes to while it reads another. Vert.x flushes such a write at
 * once (the read under way is not the written connection's own), one system call per write: a relayed WebSocket
 * frame, an HTTP/2 answer's HEADERS and each of its DATA frames. Netty's {@link FlushConsolidationHandler}, put just
 * before Vert.x's handler, holds them to one flush at the end of the event loop's turn (or every
 * {@value #GATHERED} flushes), as a connection's own reads already are; what is written is unchanged, and nothing
 * waits past the turn that wrote it.
 */
final class Flushes {

    /** Flushes gathered into one at most, so a long turn still sends as it goes. */
    static final int GATHERED = 64;

    private Flushes() {
    }

    /** Gathers the flushes of {@code connection} (once; a connection Vert.x did not make is left alone). */
    static void gather(HttpConnection connection) {
        if (connection instanceof ConnectionBase base) {
            gather(base.channelHandlerContext());
        }
    }

    /**
     * Gathers the flushes of the connection whose Vert.x handler is {@code vertx}; a connection already closed has no
     * handlers left to put one before, and is left alone.
     */
    static void gather(ChannelHandlerContext vertx) {
        if (!vertx.isRemoved() && vertx.pipeline().get(FlushConsolidationHandler.class) == null) {
            vertx.pipeline().addBefore(vertx.name(), "flush-consolidation",
                    new FlushConsolidationHandler(GATHERED, true));
        }
    }
}
