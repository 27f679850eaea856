package io.tollgate.e2e.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Plain HTTP through the JDK client: what a client of the gateway sees. */
public final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private Http() {
    }

    /** The status of a GET, or -1 when nothing answers. */
    public static int status(String url) {
        try {
            return get(url, Map.of()).statusCode();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    public static HttpResponse<String> get(String url, Map<String, String> headers) {
        return send("GET", url, headers, null);
    }

    public static HttpResponse<String> send(String method, String url, Map<String, String> headers, String body) {
        return send(method, url, headers, body, Duration.ofSeconds(10));
    }

    /** Like {@link #send(String, String, Map, String)}, waiting at most {@code timeout} for the answer. */
    public static HttpResponse<String> send(String method, String url, Map<String, String> headers, String body,
            Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(timeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + url + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
