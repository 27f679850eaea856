package io.tollgate.gateway.proxy;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/**
 * The headers a backend reads to learn who really called. {@code X-Forwarded-For} ends in the peer: after what a
 * trusted proxy forwarded (all of its lines, as one list), alone when the peer is not trusted, whose own claims
 * would otherwise reach a backend that reads the header from the left. {@code Forwarded} and {@code X-Real-IP}
 * pass only from a trusted proxy. {@code X-Forwarded-Proto} and {@code -Host} say what the client used.
 */
final class ForwardedHeaders {

    static final String FOR = "X-Forwarded-For";
    static final String PROTO = "X-Forwarded-Proto";
    static final String HOST = "X-Forwarded-Host";
    static final String FORWARDED = "Forwarded";
    static final String REAL_IP = "X-Real-IP";

    private ForwardedHeaders() {
    }

    /** Sets the forwarding headers of {@code out}, a copy of the request's headers, for a peer trusted or not. */
    static void add(HttpServerRequest request, MultiMap out, boolean trustedPeer) {
        SocketAddress peer = request.remoteAddress();
        String before = trustedPeer ? String.join(", ", request.headers().getAll(FOR)) : "";
        if (peer != null && peer.hostAddress() != null) {
            out.set(FOR, before.isBlank() ? peer.hostAddress() : before + ", " + peer.hostAddress());
        } else if (!trustedPeer) {
            out.remove(FOR);
        }
        if (!trustedPeer) {
            out.remove(FORWARDED);
            out.remove(REAL_IP);
        }
        out.set(PROTO, request.scheme() == null ? "http" : request.scheme());
        String host = request.getHeader(HttpHeaders.HOST);
        if (host == null && request.authority() != null) {
            host = request.authority().toString(); // HTTP/2 carries it as :authority, not Host
        }
        if (host != null) {
            out.set(HOST, host);
        }
    }
}
