package io.tollgate.gateway.http;

import io.netty.util.AttributeKey;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * HTTP/1.1 connections the gateway closes after a refusal whose request's end it could not read one way only. Vert.x
 * hands the next request already read on that connection (pipelined, perhaps the body of the refused one read as a
 * request) to the handler as soon as the refusal's answer ends, before the connection is closed: such a request is
 * not served, and its connection is closed at once. The mark lives on the channel, so it goes with the connection.
 */
final class ClosingConnections {

    private static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf("tollgate.closing");

    private ClosingConnections() {
    }

    /** Marks {@code request}'s connection as closing: no further request on it is served. */
    static void mark(HttpServerRequest request) {
        if (request.connection() instanceof ConnectionBase connection) {
            connection.channel().attr(CLOSING).set(Boolean.TRUE);
        }
    }

    /** Whether {@code request} came on a connection marked as closing. */
    static boolean marked(HttpServerRequest request) {
        return request.connection() instanceof ConnectionBase connection && connection.channel().hasAttr(CLOSING);
    }
}
