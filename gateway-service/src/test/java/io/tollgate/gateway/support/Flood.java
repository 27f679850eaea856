package io.tollgate.gateway.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

import io.restassured.RestAssured;

/**
 * Many concurrent clients against the gateway under test: each on its own thread and keep-alive connection,
 * sending {@code GET path} with its own {@code X-API-Key}, as fast as answers come.
 */
public final class Flood {

    private Flood() {
    }

    /**
     * Runs {@code clients} clients; client {@code c} sends with key {@code apiKey.apply(c)} while
     * {@code more.test(n)} holds for the {@code n} requests it has sent so far.
     *
     * @return how many answers came with each status
     */
    public static Map<Integer, Integer> statuses(String path, int clients, IntFunction<String> apiKey, IntPredicate more)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ConcurrentHashMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + path))
                        .header("X-API-Key", apiKey.apply(c)).build();
                done.add(threads.submit(() -> {
                    for (int n = 0; more.test(n); n++) {
                        int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        Map<Integer, Integer> counts = new TreeMap<>();
        statuses.forEach((status, count) -> counts.put(status, count.get()));
        return counts;
    }
}
