package io.tollgate.demo;

import java.util.LinkedHashMap;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers every method and path with a small JSON echo, after reading (and counting) the whole body;
 * {@code GET /__hits} tells what was received, {@code DELETE /__hits} forgets it. Two kinds of answer show what
 * the gateway's rules of cost see: {@code /llm/**} answers as an LLM API does, with what it used
 * ({@code ?tokens=N}, default 42) in {@code usage.total_tokens}, as JSON or ({@code ?stream=true}) as a
 * {@code text/event-stream} whose last event before {@code [DONE]} carries it; {@code /hold/**} answers only
 * when {@code POST /__release} is called ({@code GET /__held} counts the answers held), a request in flight for as
 * long as a test needs.
 */
@ApplicationScoped
class DemoRoutes {

    static final String HITS_PATH = "/__hits";
    static final String HELD_PATH = "/__held";
    static final String RELEASE_PATH = "/__release";

    /** Answers of {@code /hold/**} not given yet. */
    private final Queue<HttpServerResponse> held = new ConcurrentLinkedQueue<>();

    private final HitCounter hits;

    DemoRoutes(HitCounter hits) {
        this.hits = hits;
    }

    void register(@Observes Router router) {
        router.get(HITS_PATH).handler(this::hits);
        router.delete(HITS_PATH).handler(this::reset);
        router.get(HELD_PATH).handler(ctx -> json(ctx, 200, new JsonObject().put("held", held.size())));
        router.post(RELEASE_PATH).handler(this::release);
        router.route("/llm/*").handler(this::llm);
        router.route("/hold/*").handler(this::hold);
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

    private void hold(RoutingContext ctx) {
        HttpServerResponse response = ctx.response();
        hits.record(ctx.request().getHeader("X-API-Key"));
        response.closeHandler(v -> held.remove(response));
        held.add(response);
    }

    private void release(RoutingContext ctx) {
        int released = 0;
        for (HttpServerResponse response; (response = held.poll()) != null;) {
            if (!response.closed()) {
                response.putHeader("Content-Type", "application/json").end("{\"released\":true}");
                released++;
            }
        }
        json(ctx, 200, new JsonObject().put("released", released));
    }

    private void llm(RoutingContext ctx) {
        hits.record(ctx.request().getHeader("X-API-Key"));
        long tokens = Long.parseLong(ctx.request().params().get("tokens") == null
                ? "42"
                : ctx.request().params().get("tokens"));
        JsonObject usage = new JsonObject().put("prompt_tokens", tokens / 2).put("completion_tokens", tokens - tokens / 2)
                .put("total_tokens", tokens);
        HttpServerResponse response = ctx.response();
        if (!"true".equals(ctx.request().params().get("stream"))) {
            json(ctx, 200, new JsonObject().put("object", "chat.completion")
                    .put("choices", new JsonArray().add(new JsonObject().put("index", 0)
                            .put("message", new JsonObject().put("role", "assistant").put("content", "Hello."))))
                    .put("usage", usage));
            return;
        }
        response.setChunked(true).putHeader("Content-Type", "text/event-stream");
        for (String word : new String[]{"Hel", "lo", "."}) {
            response.write("data: " + new JsonObject().put("object", "chat.completion.chunk").put("choices",
                    new JsonArray().add(new JsonObject().put("delta", new JsonObject().put("content", word))))
                    .encode() + "\n\n");
        }
        response.write("data: " + new JsonObject().put("object", "chat.completion.chunk")
                .put("choices", new JsonArray()).put("usage", usage).encode() + "\n\n");
        response.end("data: [DONE]\n\n");
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
