package io.tollgate.gateway.store;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * Checks that reach one event loop together go to Redis in one write (standalone Redis, the default): the
 * counts stay exact and a flushed script cache heals inside a batch. (That one loop turn is one write:
 * {@link PinnedConnectionsTest}.)
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "2s"))
class CoalescingTest {

    private static final int CONNECTIONS = 32;
    private static final int REQUESTS_EACH = 25;
    private static final int LIMIT = 300;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private int redisPort;

    @BeforeEach
    void reset() {
        resetBackend();
        redisPort = RedisCli.port(config("test.redis.nodes"));
    }

    @Test
    void concurrentChecksOfManyClientsStayExact() throws Exception {
        // one bucket every client shares (key "global") and one per client: two checks per request, batched
        install("[" + rule("co.global", "/co/**", "global", LIMIT, "1h", LIMIT, "") + ","
                + rule("co.client", "/co/**", "api_key", 1_000, "1h", 1_000, "") + "]");

        ConcurrentHashMap<Integer, AtomicInteger> statuses = flood("/co/x");

        assertThat(statuses.keySet()).as("statuses").containsOnly(200, 429);
        assertThat(statuses.get(200).get()).as("allowed of %d", CONNECTIONS * REQUESTS_EACH).isEqualTo(LIMIT);
        assertThat(backendHits()).isEqualTo(LIMIT);
        assertThat(given().get("/q/metrics").asString()).as("decided by the store, never by the failure policy")
                .doesNotContainPattern("outcome=\"fallback_[a-z]+\",rule=\"co\\.[a-z]+\"} [1-9]");
    }

    @Test
    void aScriptCacheFlushedUnderLoadHealsWithoutAWrongAnswer() throws Exception {
        install("[" + rule("co.flush", "/flush/**", "global", LIMIT, "1h", LIMIT, "") + "]");
        RedisCli.run(redisPort, "SCRIPT", "FLUSH");

        ConcurrentHashMap<Integer, AtomicInteger> statuses = flood("/flush/x");

        assertThat(statuses.keySet()).as("no check failed: every batch that met NOSCRIPT was sent again")
                .containsOnly(200, 429);
        assertThat(statuses.get(200).get()).isEqualTo(LIMIT);
        assertThat(backendHits()).isEqualTo(LIMIT);
        assertThat(given().get("/q/metrics").asString()).as("decided by the store, never by the failure policy")
                .doesNotContainPattern("outcome=\"fallback_[a-z]+\",rule=\"co\\.flush\"} [1-9]");
    }

    /** {@code CONNECTIONS} clients, each with its own key, sending {@code REQUESTS_EACH} requests at once. */
    private ConcurrentHashMap<Integer, AtomicInteger> flood(String path) throws Exception {
        ConcurrentHashMap<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + path))
                        .header("X-API-Key", "client-" + c).build();
                done.add(clients.submit(() -> {
                    for (int i = 0; i < REQUESTS_EACH; i++) {
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
            clients.shutdownNow();
        }
        return statuses;
    }
}
