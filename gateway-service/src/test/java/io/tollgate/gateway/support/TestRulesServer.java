package io.tollgate.gateway.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/**
 * A small real HTTP server playing the rules service's read side: {@code GET /api/v1/rules} with ETag and
 * 304, {@code Tollgate-Gateways} on every answer, the pages of client directory changes
 * ({@code GET /api/v1/directory?since=&limit=}, {@link TestDirectory}) and the {@code /api/v1/rules/watch} event
 * stream. Tests drive it over HTTP (so it works across class loaders): {@code PUT /__rules?version=N} sets the
 * body served (valid or not) and pushes one {@code rules} event; {@code PUT /__directory} records directory
 * changes and pushes one {@code directory} event, answering {@code {"seq": N}}; {@code DELETE /__directory}
 * forgets them all (a rebuilt database); {@code PUT /__watch?open=false} cuts every watch stream and refuses new
 * ones until {@code open=true}; {@code PUT /__gateways?count=N}; {@code GET /__seen} (what the last poll of the rules said: its
 * {@code Tollgate-Gateway}, {@code Tollgate-Gateway-Admin} and {@code Authorization}).
 */
public final class TestRulesServer implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final HttpServer server;
    private final AtomicReference<String> body = new AtomicReference<>("{\"version\":1,\"rules\":[]}");
    private final AtomicLong version = new AtomicLong(1);
    private final AtomicLong gateways = new AtomicLong(1);
    private final AtomicReference<String> lastGateway = new AtomicReference<>("");
    private final AtomicReference<String> lastAdmin = new AtomicReference<>("");
    private final AtomicReference<String> lastAuthorization = new AtomicReference<>("");
    private final AtomicLong polls = new AtomicLong();
    private final List<HttpServerResponse> watchers = new CopyOnWriteArrayList<>();
    private final TestDirectory directory = new TestDirectory();
    private final AtomicLong directoryReads = new AtomicLong();
    private volatile boolean watchOpen = true;

    public TestRulesServer() throws Exception {
        server = vertx.createHttpServer()
                .requestHandler(this::handle)
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    private void handle(HttpServerRequest request) {
        String path = request.path();
        HttpServerResponse response = request.response();
        switch (path) {
            case "/api/v1/rules" -> rules(request, response);
            case "/api/v1/rules/watch" -> watch(request, response);
            case "/api/v1/directory" -> directory(request, response);
            case "/api/v1/clients" -> response.putHeader("Content-Type", "application/json")
                    .end(directory.labels(request.params().getAll("digest")).encode());
            case "/__directory" -> changeDirectory(request, response);
            case "/__watch" -> {
                watchOpen = Boolean.parseBoolean(request.getParam("open"));
                if (!watchOpen) {
                    watchers.forEach(HttpServerResponse::close);
                    watchers.clear();
                }
                response.end("{}");
            }
            case "/__rules" -> request.body().onSuccess(b -> {
                version.set(Long.parseLong(request.getParam("version")));
                body.set(b.toString());
                watchers.forEach(w -> w.write("event: rules\ndata: {\"version\":" + version.get() + "}\n\n"));
                response.end("{}");
            });
            case "/__gateways" -> {
                gateways.set(Long.parseLong(request.getParam("count")));
                response.end("{}");
            }
            case "/__seen" -> response.end(new JsonObject()
                    .put("gateway", lastGateway.get())
                    .put("admin", lastAdmin.get())
                    .put("authorization", lastAuthorization.get())
                    .put("polls", polls.get())
                    .put("watchers", watchers.size())
                    .put("directoryReads", directoryReads.get())
                    .encode());
            default -> response.setStatusCode(404).end();
        }
    }

    private void rules(HttpServerRequest request, HttpServerResponse response) {
        polls.incrementAndGet();
        String id = request.getHeader("Tollgate-Gateway");
        lastGateway.set(id == null ? "" : id);
        lastAdmin.set(String.valueOf(request.getHeader("Tollgate-Gateway-Admin")));
        lastAuthorization.set(String.valueOf(request.getHeader("Authorization")));
        String etag = "\"" + version.get() + "\"";
        response.putHeader("Tollgate-Gateways", Long.toString(gateways.get())).putHeader("ETag", etag);
        if (etag.equals(request.getHeader("If-None-Match"))) {
            response.setStatusCode(304).end();
        } else {
            response.putHeader("Content-Type", "application/json").end(body.get());
        }
    }

    private void directory(HttpServerRequest request, HttpServerResponse response) {
        directoryReads.incrementAndGet();
        String limit = request.getParam("limit");
        TestDirectory.Page page = directory.page(Long.parseLong(request.getParam("since")),
                limit == null ? 10_000 : Integer.parseInt(limit));
        if (page.reset()) {
            response.putHeader("Tollgate-Directory-Reset", "true");
        }
        response.putHeader("Content-Type", "application/json").end(page.body());
    }

    private void changeDirectory(HttpServerRequest request, HttpServerResponse response) {
        if (request.method() == HttpMethod.DELETE) {
            directory.clear();
            response.end("{}");
            return;
        }
        request.body().onSuccess(b -> {
            long seq = directory.push(b.toJsonObject());
            watchers.forEach(w -> w.write("event: directory\ndata: {\"seq\":" + seq + "}\n\n"));
            response.end(new JsonObject().put("seq", seq).encode());
        });
    }

    private void watch(HttpServerRequest request, HttpServerResponse response) {
        if (!watchOpen) {
            response.setStatusCode(503).end();
            return;
        }
        response.setChunked(true).putHeader("Content-Type", "text/event-stream").write(":open\n\n");
        watchers.add(response);
        response.closeHandler(v -> watchers.remove(response));
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
