package io.tollgate.rules.live;

import java.util.Map;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * GETs on the gateways' management interfaces, with the token each gateway proved itself with, each bounded by
 * {@code tollgate.live.timeout} (to connect, then between reads), never blocking: the answer completes on an
 * event loop. A call that cannot connect, or stays silent, fails.
 */
@ApplicationScoped
class GatewayCalls {

    /** One answer: its status, content type and body. */
    record Answer(int status, String contentType, Buffer body) {
    }

    private final HttpClient client;
    private final long timeoutMs;

    GatewayCalls(Vertx vertx, LiveConfig config) {
        this.timeoutMs = Math.max(1, config.timeout().toMillis());
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs)));
    }

    /** {@code GET <admin URL><pathAndQuery>} on {@code gateway}, which must have an admin URL. */
    Future<Answer> get(GatewayRegistry.Gateway gateway, String pathAndQuery) {
        return get(gateway, pathAndQuery, Map.of());
    }

    /** The same, with {@code headers} besides this service's own {@code Authorization}. */
    Future<Answer> get(GatewayRegistry.Gateway gateway, String pathAndQuery, Map<String, String> headers) {
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setAbsoluteURI(gateway.adminUrl() + pathAndQuery)
                .setConnectTimeout(timeoutMs)
                .setIdleTimeout(timeoutMs);
        headers.forEach(options::putHeader);
        if (gateway.authorization() != null) {
            options.putHeader(HttpHeaders.AUTHORIZATION, gateway.authorization());
        }
        // the body asked for in the turn the head arrives, on the client's event loop: chained from another
        // thread, a fast answer can come whole before body() is, and Vert.x drops chunks no handler takes
        return client.request(options)
                .compose(request -> request.send().compose(response -> response.body()
                        .map(body -> new Answer(response.statusCode(),
                                response.getHeader(HttpHeaders.CONTENT_TYPE), body))));
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
