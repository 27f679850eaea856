package io.tollgate.gateway.warmup;

import java.net.URI;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * The backend of the warm-up: a tiny HTTP server on {@code 127.0.0.1} and a free port, open only while the
 * warm-up sends. It reads each request's body, answers a few bytes and counts what reached it through the
 * gateway's proxy path ({@code tollgate_warmup_requests_total}).
 */
final class LoopbackTarget {

    private final HttpServer server;

    private LoopbackTarget(HttpServer server) {
        this.server = server;
    }

    static Future<LoopbackTarget> start(Vertx vertx, Counter reached) {
        return vertx.createHttpServer()
                .requestHandler(request -> answer(request, reached))
                .listen(0, "127.0.0.1")
                .map(LoopbackTarget::new);
    }

    private static void answer(HttpServerRequest request, Counter reached) {
        reached.increment();
        request.body().onComplete(body -> request.response()
                .putHeader("Content-Type", "text/plain")
                .end("warm\n"));
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.actualPort());
    }

    Future<Void> close() {
        return server.close();
    }
}
