package io.tollgate.demo;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code /ws/echo}: a WebSocket that sends every text or binary message back as it came, to try the gateway's
 * WebSocket relay ({@code python3 demo/wsclient.py -H 'X-API-Key: ak_42' ws://127.0.0.1:8080/ws/echo}); the upgrade counts as a
 * hit like any request.
 * Other requests of that path get the JSON echo.
 */
@ApplicationScoped
class EchoSocket {

    static final String PATH = "/ws/echo";

    private final HitCounter hits;

    EchoSocket(HitCounter hits) {
        this.hits = hits;
    }

    void register(@Observes Router router) {
        router.get(PATH).order(-1).handler(this::upgrade);
    }

    private void upgrade(RoutingContext ctx) {
        if (!"websocket".equalsIgnoreCase(ctx.request().getHeader(HttpHeaders.UPGRADE))) {
            ctx.next();
            return;
        }
        hits.record(ctx.request().getHeader("X-API-Key"));
        ctx.request().toWebSocket().onSuccess(EchoSocket::echo);
    }

    private static void echo(ServerWebSocket socket) {
        socket.textMessageHandler(socket::writeTextMessage);
        socket.binaryMessageHandler(socket::writeBinaryMessage);
    }
}
