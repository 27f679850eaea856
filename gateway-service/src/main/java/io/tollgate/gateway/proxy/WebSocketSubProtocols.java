package io.tollgate.gateway.proxy;

import java.util.List;

import jakarta.inject.Singleton;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;

/**
 * Lets the public port accept whichever subprotocol the upstream chose. Vert.x 4 negotiates a server socket's
 * subprotocol from a list fixed at start; with {@code *} it takes the first the request offers, and
 * {@link WebSocketRelay} leaves the request offering only the upstream's choice (or none) before it upgrades.
 */
@Singleton
class WebSocketSubProtocols implements HttpServerOptionsCustomizer {

    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setWebSocketSubProtocols(List.of("*"));
    }

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        options.setWebSocketSubProtocols(List.of("*"));
    }
}
