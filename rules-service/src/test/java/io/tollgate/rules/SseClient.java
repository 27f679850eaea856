package io.tollgate.rules;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.restassured.RestAssured;

/** A minimal Server-Sent Events reader for tests: records every event and comment as it arrives. */
public final class SseClient implements AutoCloseable {

    /** One event: its id (the last one sent, as SSE keeps it), its name ({@code message} when unnamed), its data. */
    public record Event(long id, String name, String data, long arrivedNanos) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<String> comments = new CopyOnWriteArrayList<>();
    private final CompletableFuture<HttpResponse<Void>> response;

    private SseClient(URI uri, String lastEventId) {
        this(uri, lastEventId, Api.READ);
    }

    private SseClient(URI uri, String lastEventId, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream")
                .header("Authorization", authorization);
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        response = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                .sendAsync(request.build(), HttpResponse.BodyHandlers.fromLineSubscriber(new LineParser()));
    }

    /** Opens {@code path} (e.g. {@code /api/v1/rules/watch?since=3}) on the app under test. */
    public static SseClient open(String path) {
        return new SseClient(URI.create("http://localhost:" + RestAssured.port + path), null);
    }

    /** Opens {@code path} with a {@code Last-Event-ID} header. */
    public static SseClient open(String path, String lastEventId) {
        return new SseClient(URI.create("http://localhost:" + RestAssured.port + path), lastEventId);
    }

    /** Opens {@code path} with {@code authorization} (e.g. {@code Bearer <token>}). */
    public static SseClient openAs(String path, String authorization) {
        return new SseClient(URI.create("http://localhost:" + RestAssured.port + path), null, authorization);
    }

    public List<Event> events() {
        return events;
    }

    /** The events named {@code name}, e.g. {@code directory}. */
    public List<Event> events(String name) {
        return events.stream().filter(e -> e.name().equals(name)).toList();
    }

    public List<String> comments() {
        return comments;
    }

    @Override
    public void close() {
        response.cancel(true);
    }

    private final class LineParser implements java.util.concurrent.Flow.Subscriber<String> {

        private long id = -1;
        private String name = "message";
        private final StringBuilder data = new StringBuilder();

        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (line.isEmpty()) {
                if (data.length() > 0) {
                    events.add(new Event(id, name, data.toString(), System.nanoTime()));
                }
                data.setLength(0);
                name = "message";
            } else if (line.startsWith(":")) {
                comments.add(line.substring(1).trim());
            } else if (line.startsWith("id:")) {
                id = Long.parseLong(line.substring(3).trim());
            } else if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                data.append(line.substring(5).trim());
            }
        }

        @Override
        public void onError(Throwable t) {
            // the test closed the stream, or the server did: either way the recorded events stand
        }

        @Override
        public void onComplete() {
        }
    }
}
