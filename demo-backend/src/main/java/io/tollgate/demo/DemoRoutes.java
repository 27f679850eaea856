package io.tollgate.demo;

import java.util.LinkedHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers every method and path with a small JSON echo, after reading (and counting) the whole body;
 * {@code GET /__hits} tells what was received, {@code DELETE /__hits} forgets it.
 */
@ApplicationScoped
class DemoRoutes {

    static final String HITS_PATH = "/__hits";

    private final HitCounter hits;

    DemoRoutes(HitCounter hits) {
        this.hits = hits;
    }

    void register(@Observes Router router) {
        router.get(HITS_PATH).handler(this::hits);
        router.delete(HITS_PATH).handler(this::reset);
        router.routeWithRegex("^/(?!q/).*").handler(this::echo);
    }

    private void hits(RoutingContext ctx) {
        JsonObject byApiKey = new JsonObject(new LinkedHashMap<>(hits.byApiKey()));
        json(ctx, 200, new JsonObject().put("total", hits.total()).put("by_api_key", byApiKey));
    }

    private void reset(RoutingContext ctx) {
        hits.reset();
        ctx.response().setStatusCode(204).end();
    }

    private void echo(RoutingContext ctx) {
        var request = ctx.request();
        long[] bodyBytes = {0};
        request.handler(chunk -> bodyBytes[0] += chunk.length());
        request.endHandler(done -> {
            hits.record(request.getHeader("X-API-Key"));
            json(ctx, 200, new JsonObject()
                    .put("method", request.method().name())
                    .put("path", request.path())
                    .put("body_bytes", bodyBytes[0])
                    .put("x_forwarded_for", request.getHeader("X-Forwarded-For")));
        });
    }

    private static void json(RoutingContext ctx, int status, JsonObject body) {
        ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .end(Buffer.buffer(body.encode()));
    }
}
