package io.tollgate.gateway.support;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;

/**
 * A Vert.x HTTP/2 client of the gateway's public port in clear text (h2c): by prior knowledge, or by an HTTP/1.1
 * upgrade on its first request. One connection, reused by every request.
 */
public final class H2Client implements AutoCloseable {

    /** What came back: status, the protocol it came in, headers, the whole body and the trailers. */
    public record Answer(int status, HttpVersion version, MultiMap headers, String body, MultiMap trailers) {
    }

    private final Vertx vertx = Vertx.vertx();
    private final HttpClient client;
    private final int port;

    /** {@code upgrade}: the first request asks for HTTP/2 with {@code Upgrade: h2c}; else prior knowledge. */
    public H2Client(int port, boolean upgrade) {
        this.port = port;
        this.client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(upgrade)
                .setHttp2MaxPoolSize(1));
    }

    /** Sends {@code method uri} with {@code headers} and {@code body} (null: none), and waits for the whole answer. */
    public Answer send(HttpMethod method, String uri, MultiMap headers, Buffer body) throws Exception {
        return await(exchange(method, uri, headers, body));
    }

    /** GETs all of {@code uris} at once, as concurrent streams of the one connection; their answers in that order. */
    public List<Answer> getAll(List<String> uris) throws Exception {
        List<Future<Answer>> answers = uris.stream()
                .map(uri -> exchange(HttpMethod.GET, uri, MultiMap.caseInsensitiveMultiMap(), null))
                .toList();
        return await(Future.all(answers).map(all -> all.<Answer>list()));
    }

    /**
     * HTTP/2's "rapid reset" (CVE-2023-44487): up to {@code streams} GETs of {@code uri} on the one connection, each
     * reset right after its headers went out. Answers how many were sent before the gateway closed the connection,
     * or -1 when it never did (waiting 10 s after the last).
     */
    public int resetUntilClosed(String uri, int streams, String apiKey) throws Exception {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        int sent = 0;
        while (sent < streams && !closed.isDone()) {
            HttpClientRequest request;
            try {
                request = await(client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1")
                        .setPort(port).setURI(uri)));
            } catch (Exception refused) {
                break; // the connection is going away under the next stream
            }
            if (sent == 0) {
                request.connection().closeHandler(v -> closed.complete(null));
            }
            request.putHeader("X-API-Key", apiKey);
            request.sendHead();
            request.reset();
            sent++;
        }
        try {
            closed.get(10, TimeUnit.SECONDS);
            return sent;
        } catch (TimeoutException stillOpen) {
            return -1;
        }
    }

    /** A GET of {@code uri} whose HEADERS go out, then the connection closes under it: a client that left. */
    public void closeAfterHeaders(String uri, String apiKey) throws Exception {
        await(sendHead(uri, apiKey).connection().close());
    }

    /**
     * A POST of {@code uri} with {@code apiKey} whose HEADERS went out, its body still to come (the test may write
     * some): the test resets or drops it; its own failure is not logged.
     */
    public HttpClientRequest sendHead(String uri, String apiKey) throws Exception {
        HttpClientRequest request = leftToTheTest(HttpMethod.POST, uri, apiKey);
        request.setChunked(true); // the body may then be written without a length (HTTP/2 frames it)
        await(request.sendHead());
        return request;
    }

    /** A GET of {@code uri} with {@code apiKey}, sent whole, its answer not waited for: the test resets it. */
    public HttpClientRequest sendGet(String uri, String apiKey) throws Exception {
        HttpClientRequest request = leftToTheTest(HttpMethod.GET, uri, apiKey);
        await(request.end());
        return request;
    }

    /** A request the test ends as it means to: its own failure is not logged. */
    private HttpClientRequest leftToTheTest(HttpMethod method, String uri, String apiKey) throws Exception {
        HttpClientRequest request = await(client.request(new RequestOptions().setMethod(method)
                .setHost("127.0.0.1").setPort(port).setURI(uri)));
        request.putHeader("X-API-Key", apiKey);
        request.exceptionHandler(endedByTheTest -> {
            // what the test means to do
        });
        return request;
    }

    private Future<Answer> exchange(HttpMethod method, String uri, MultiMap headers, Buffer body) {
        RequestOptions options = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri);
        // The body is asked for inside the request's step, which runs on the event loop the answer is delivered on,
        // so it is asked for before any of the body comes. Chained from this (the test's) thread, that step can be
        // attached after a fast answer has come whole: Vert.x drops chunks no handler takes, and body() is then empty.
        return client.request(options)
                .compose(request -> {
                    request.headers().addAll(headers);
                    return (body == null ? request.send() : request.send(body))
                            .compose(response -> response.body()
                                    .map(whole -> new Answer(response.statusCode(), response.version(),
                                            response.headers(), whole.toString(), response.trailers())));
                });
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    public Answer get(String uri, String... headerPairs) throws Exception {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.add(headerPairs[i], headerPairs[i + 1]);
        }
        return send(HttpMethod.GET, uri, headers, null);
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
