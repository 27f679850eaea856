package io.tollgate.gateway.rules;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Talks to the rules service: {@code GET /api/v1/rules} with {@code If-None-Match}, the pages of client
 * directory changes ({@code GET /api/v1/directory?since=}), and the {@code /api/v1/rules/watch} event stream.
 * Every call says who is asking ({@link PollHeaders}).
 */
final class RulesClient {

    static final String GATEWAYS = "Tollgate-Gateways";
    /** Said with a page of directory changes that starts from nothing: the service's changes were renumbered. */
    static final String DIRECTORY_RESET = "Tollgate-Directory-Reset";
    private static final String RULES = "/api/v1/rules";
    private static final String DIRECTORY = "/api/v1/directory";
    private static final String CLIENTS = "/api/v1/clients";

    /** One answer to a fetch: 200 with a body, or 304 with none; the ETag names the version served. */
    record Fetched(int status, Buffer body, String etag, String gateways) {
    }

    /** One page of directory changes; {@code reset}: it starts from nothing, and the copy must too. */
    record DirectoryPage(Buffer body, boolean reset) {
    }

    private final HttpClient client;
    private final URI base;
    private final PollHeaders headers;
    private final long timeoutMs;

    RulesClient(Vertx vertx, URI base, PollHeaders headers, long timeoutMs) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
        this.base = base;
        this.headers = headers;
        this.timeoutMs = timeoutMs;
    }

    /** The current rule set, or 304 when {@code knownVersion} (≥ 0) is still current. */
    Future<Fetched> fetch(long knownVersion) {
        RequestOptions options = options(RULES).setIdleTimeout(timeoutMs).setConnectTimeout(timeoutMs);
        if (knownVersion >= 0) {
            options.putHeader("If-None-Match", "\"" + knownVersion + "\"");
        }
        return client.request(options)
                .compose(request -> request.send())
                .compose(response -> response.body().map(body -> answer(response, body)));
    }

    /** The directory changes after {@code since}, at most {@code limit} of them. */
    Future<DirectoryPage> directory(long since, int limit) {
        RequestOptions options = options(DIRECTORY + "?since=" + since + "&limit=" + limit)
                .setIdleTimeout(timeoutMs)
                .setConnectTimeout(timeoutMs);
        return client.request(options)
                .compose(request -> request.send())
                .compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("directory answered " + response.statusCode());
                    }
                    return new DirectoryPage(body, "true".equalsIgnoreCase(response.getHeader(DIRECTORY_RESET)));
                }));
    }

    /**
     * The labels of the clients named by {@code digests} ({@code GET /api/v1/clients?digest=...}), by digest; a
     * client without a label, or not in the directory, is absent.
     */
    Future<Map<String, String>> labels(List<String> digests) {
        StringBuilder query = new StringBuilder(CLIENTS);
        for (int i = 0; i < digests.size(); i++) {
            query.append(i == 0 ? '?' : '&').append("digest=").append(digests.get(i));
        }
        RequestOptions options = options(query.toString()).setIdleTimeout(timeoutMs).setConnectTimeout(timeoutMs);
        return client.request(options)
                .compose(request -> request.send())
                .compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("client lookup answered " + response.statusCode());
                    }
                    Map<String, String> labels = new HashMap<>();
                    for (Object c : body.toJsonObject().getJsonArray("clients", new JsonArray())) {
                        JsonObject client = (JsonObject) c;
                        if (client.getString("label") != null) {
                            labels.put(client.getString("digest"), client.getString("label"));
                        }
                    }
                    return labels;
                }));
    }

    /** Opens the watch stream; events and its end are delivered to {@code events} on an event loop. */
    Future<Void> watch(long since, SseListener events) {
        RequestOptions options = options(RULES + "/watch?since=" + Math.max(0, since))
                .setConnectTimeout(timeoutMs)
                .putHeader("Accept", "text/event-stream");
        return client.request(options)
                .compose(request -> request.send())
                .compose(response -> {
                    if (response.statusCode() != 200) {
                        return Future.failedFuture("watch answered " + response.statusCode());
                    }
                    SseParser parser = new SseParser(events);
                    response.handler(parser::feed);
                    response.endHandler(v -> events.closed(null));
                    response.exceptionHandler(events::closed);
                    return Future.succeededFuture();
                });
    }

    void close() {
        client.close();
    }

    private RequestOptions options(String path) {
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setHost(base.getHost())
                .setPort(base.getPort() > 0 ? base.getPort() : "https".equals(base.getScheme()) ? 443 : 80)
                .setSsl("https".equals(base.getScheme()))
                .setURI(path);
        headers.addTo(options);
        return options;
    }

    private static Fetched answer(HttpClientResponse response, Buffer body) {
        int status = response.statusCode();
        if (status != 200 && status != 304) {
            throw new IllegalStateException("rules service answered " + status);
        }
        return new Fetched(status, status == 200 ? body : null, response.getHeader("ETag"),
                response.getHeader(GATEWAYS));
    }
}
