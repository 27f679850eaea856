package io.tollgate.gateway.proxy;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/** The de-facto {@code X-Forwarded-*} headers a backend reads to learn who really called. */
final class ForwardedHeaders {

    static final String FOR = "X-Forwarded-For";
    static final String PROTO = "X-Forwarded-Proto";
    static final String HOST = "X-Forwarded-Host";

    private ForwardedHeaders() {
    }

    /** Appends the peer to {@code X-Forwarded-For} and sets the scheme and host the client used. */
    static void add(HttpServerRequest request, MultiMap out) {
        SocketAddress peer = request.remoteAddress();
        if (peer != null && peer.hostAddress() != null) {
            String before = request.getHeader(FOR);
            out.set(FOR, before == null || before.isBlank() ? peer.hostAddress() : before + ", " + peer.hostAddress());
        }
        out.set(PROTO, request.scheme() == null ? "http" : request.scheme());
        String host = request.getHeader(HttpHeaders.HOST);
        if (host != null) {
            out.set(HOST, host);
        }
    }
}
