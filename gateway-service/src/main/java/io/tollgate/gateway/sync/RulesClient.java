package io.tollgate.gateway.sync;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.URI;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;

import io.tollgate.rules.domain.DirectoryCopyFormat;
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
 * Talks to the rules service (each answer's body is asked for inside the request's step, which runs on the event
 * loop the answer arrives on: chained from another thread, a fast answer could come whole first, and Vert.x drops
 * the chunks no handler takes, leaving an empty body): {@code GET /api/v1/rules} with {@code If-None-Match}, the pages of
 * client
 * directory changes ({@code GET /api/v1/directory?since=}), and the {@code /api/v1/rules/watch} event stream.
 * Every call says who is asking ({@link PollHeaders}).
 */
final class RulesClient {

    static final String GATEWAYS = "Tollgate-Gateways";
    /** Said with a page of directory changes that starts from nothing: the service's changes were renumbered. */
    static final String DIRECTORY_RESET = "Tollgate-Directory-Reset";
    /** Said with a page of directory changes: the directory's last change. */
    static final String DIRECTORY_SEQ = "Tollgate-Directory-Seq";
    private static final String RULES = "/api/v1/rules";
    private static final String DIRECTORY = "/api/v1/directory";
    private static final String CLIENTS = "/api/v1/clients";

    /** One answer to a fetch: 200 with a body, or 304 with none; the ETag names the version served. */
    record Fetched(int status, Buffer body, String etag, String gateways) {
    }

    /**
     * One page of directory changes; {@code reset}: it starts from nothing, and the copy must too; {@code current}:
     * the directory's last change, or -1 when the service does not say.
     */
    record DirectoryPage(Buffer body, boolean reset, long current) {
    }

    /**
     * A whole copy of the directory as it arrives ({@link DirectoryCopyFormat}), the answer paused until
     * {@link #open} is read; {@code abandon} drops the connection when it is not read to its end.
     */
    record CopyStream(HttpClientResponse response, Runnable abandon) {

        /**
         * The body as a stream, a few buffers asked for at a time as it is read, so a copy of a million clients never
         * sits whole in the heap. On a worker: reading blocks.
         */
        InputStream open() {
            Iterator<io.vertx.mutiny.core.buffer.Buffer> next = io.vertx.mutiny.core.http.HttpClientResponse
                    .newInstance(response)
                    .toMulti()
                    .subscribe().asIterable(COPY_BUFFERS, () -> new ArrayBlockingQueue<>(COPY_BUFFERS))
                    .iterator();
            return new SequenceInputStream(new Enumeration<InputStream>() {

                @Override
                public boolean hasMoreElements() {
                    return next.hasNext();
                }

                @Override
                public InputStream nextElement() {
                    return new ByteArrayInputStream(next.next().getBytes());
                }
            });
        }
    }

    /** The rules service does not serve whole copies (an older version): 404 to {@code /api/v1/directory/copy}. */
    static final class NoCopies extends RuntimeException {

        NoCopies() {
            super("the rules service serves no directory copies", null, false, false);
        }
    }

    /**
     * The rules service answered a call, but not with what was asked: it refused it (401, 403, 429) or failed it
     * (a 5xx). A gateway asks again with {@link Backoff}, not at its next poll.
     */
    static final class NotServed extends RuntimeException {

        private final int status;

        NotServed(String call, int status) {
            super(call + " answered " + status, null, false, false);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    /** Buffers of a copy's body asked for ahead of the reader. */
    private static final int COPY_BUFFERS = 16;

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
                .compose(request -> request.send().compose(response -> response.body().map(body -> answer(response, body))));
    }

    /** The directory changes after {@code since}, at most {@code limit} of them. */
    Future<DirectoryPage> directory(long since, int limit) {
        RequestOptions options = options(DIRECTORY + "?since=" + since + "&limit=" + limit)
                .setIdleTimeout(timeoutMs)
                .setConnectTimeout(timeoutMs);
        return client.request(options)
                .compose(request -> request.send().compose(response -> response.body().map(body -> {
                    if (response.statusCode() != 200) {
                        throw new NotServed("directory", response.statusCode());
                    }
                    return new DirectoryPage(body, "true".equalsIgnoreCase(response.getHeader(DIRECTORY_RESET)),
                            seqHeader(response.getHeader(DIRECTORY_SEQ)));
                })));
    }

    /** The whole directory ({@code GET /api/v1/directory/copy}), its body to be read as it arrives. */
    Future<CopyStream> copy() {
        RequestOptions options = options(DIRECTORY + "/copy")
                .setIdleTimeout(timeoutMs)
                .setConnectTimeout(timeoutMs)
                .putHeader("Accept", DirectoryCopyFormat.MEDIA_TYPE);
        return client.request(options)
                .compose(request -> request.send().compose(response -> {
                    if (response.statusCode() == 404) {
                        return response.body().compose(body -> Future.failedFuture(new NoCopies()));
                    }
                    if (response.statusCode() != 200) {
                        return response.body().compose(body -> Future.failedFuture(
                                new NotServed("directory copy", response.statusCode())));
                    }
                    response.pause(); // until the reader asks: nothing arrives unread meanwhile
                    return Future.succeededFuture(new CopyStream(response, request::reset));
                }));
    }

    private static long seqHeader(String value) {
        try {
            return value == null ? -1 : Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
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
                .compose(request -> request.send().compose(response -> response.body().map(body -> {
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
                })));
    }

    /** Opens the watch stream; events and its end are delivered to {@code events} on an event loop. */
    Future<Void> watch(long since, SseListener events) {
        RequestOptions options = options(RULES + "/watch?since=" + Math.max(0, since))
                .setConnectTimeout(timeoutMs)
                .putHeader("Accept", "text/event-stream");
        return client.request(options)
                .compose(request -> request.send().compose(response -> {
                    if (response.statusCode() != 200) {
                        return Future.failedFuture("watch answered " + response.statusCode());
                    }
                    SseParser parser = new SseParser(events);
                    response.handler(parser::feed);
                    response.endHandler(v -> events.closed(null));
                    response.exceptionHandler(events::closed);
                    return Future.succeededFuture();
                }));
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
            throw new NotServed("rules poll", status);
        }
        return new Fetched(status, status == 200 ? body : null, response.getHeader("ETag"),
                response.getHeader(GATEWAYS));
    }
}
