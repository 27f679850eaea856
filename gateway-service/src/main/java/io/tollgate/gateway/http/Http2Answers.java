package io.tollgate.gateway.http;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;

/**
 * Keeps the gateway's answers on HTTP/2 well-formed. HTTP/2 has no connection-specific headers (RFC 9113 §8.2.2): a
 * strict client (Netty's, nghttp2's, and so curl's) rejects an answer that carries {@code Connection} as malformed,
 * and never sees its status. Quarkus's own refusal of a body over {@code quarkus.http.limits.max-body-size} (a 413)
 * adds {@code Connection: close} whatever the protocol; this takes such a header out of every HTTP/2 answer before
 * its head goes out.
 */
@ApplicationScoped
class Http2Answers {

    /** Before every other route, Quarkus's body-size check included. */
    private static final int FIRST = Integer.MIN_VALUE;

    void register(@Observes Router router) {
        router.route().order(FIRST).handler(ctx -> {
            if (ctx.request().version() == HttpVersion.HTTP_2) {
                HttpServerResponse response = ctx.response();
                response.headersEndHandler(v -> response.headers().remove(HttpHeaders.CONNECTION));
            }
            ctx.next();
        });
    }
}
