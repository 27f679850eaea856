package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.GatewayResource;

/**
 * Rules with {@code settle} through HTTP on a real Redis and a real backend whose answers carry their usage in a
 * header, a JSON body or a streamed SSE answer: the reservation is spent at the check, the difference when the
 * answer ends; a bucket may go into debt, and the next request waits for it, told how much is owed.
 * <p>
 * The rules refill one token an hour, so what a bucket holds during a test is what was spent.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class SettleTest {

    private static final Duration SETTLED = Duration.ofSeconds(10);

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "settle-" + UUID.randomUUID();
        resetBackend();
    }

    @Test
    void aHeaderAJsonBodyAndAnSseStreamEachChargeWhatTheAnswerSaysItUsed() {
        install("[" + rule("llm.header", "/usage/header/**", "api_key", 1, "1h", 1000,
                "\"cost\":100,\"unit\":\"tokens\",\"settle\":{\"from\":\"header:X-Usage-Tokens\"}") + ","
                + rule("llm.json", "/usage/json/**", "api_key", 1, "1h", 1000,
                        "\"cost\":100,\"unit\":\"tokens\",\"settle\":{\"from\":\"json:/usage/total_tokens\"}")
                + ","
                + rule("llm.sse", "/usage/sse/**", "api_key", 1, "1h", 1000,
                        "\"cost\":100,\"unit\":\"tokens\",\"settle\":{\"from\":\"json:/usage/total_tokens\"}")
                + "]");

        get("/usage/header/350").then().statusCode(200).header("RateLimit-Remaining", "900")
                .header("RateLimit-Policy", "\"llm.header\";q=1000;w=3600000;qu=\"tokens\"");
        awaitRemaining("/usage/header/x", 650);

        get("/usage/json/40").then().statusCode(200).body("usage.total_tokens", org.hamcrest.Matchers.equalTo(40));
        awaitRemaining("/usage/json/x", 960);

        String stream = get("/usage/sse/700").then().statusCode(200).extract().asString();
        assertThat(stream).as("the stream reached the client whole").endsWith("data: [DONE]\n\n");
        awaitRemaining("/usage/sse/x", 300);
        assertThat(metric("tollgate_settlements_total{outcome=\"settled\",rule=\"llm.sse\"}")).isEqualTo(1.0);
    }

    @Test
    void anAnswerThatUsedMoreThanTheBucketHeldLeavesADebtTheNextRequestWaitsFor() {
        // 100 a second, burst 1000: a debt of 500 needs 600 tokens (6 s) before a request of cost 100 passes
        install("[" + rule("llm.debt", "/usage/**", "api_key", 100, "1s", 1000,
                "\"cost\":100,\"unit\":\"tokens\",\"settle\":{\"from\":\"header:X-Usage-Tokens\"}") + "]");
        get("/usage/header/1500").then().statusCode(200);
        await().atMost(SETTLED).untilAsserted(() -> get("/usage/header/1").then().statusCode(429)
                .header("Retry-After", org.hamcrest.Matchers.oneOf("6", "5"))
                .body("violated-policies", contains("llm.debt"))
                .body("owed.'llm.debt'", org.hamcrest.Matchers.both(org.hamcrest.Matchers.greaterThan(0))
                        .and(org.hamcrest.Matchers.lessThanOrEqualTo(500)))
                .body("detail", containsString("llm.debt is owed")));
        assertThat(backendHits()).as("the request refused for the debt never reached the backend").isEqualTo(1);
    }

    @Test
    void concurrentRequestsThatAllPassedTheirReservationAreChargedExactly() throws Exception {
        install("[" + rule("llm.many", "/usage/**", "api_key", 1, "1h", 10_000,
                "\"cost\":100,\"unit\":\"tokens\",\"settle\":{\"from\":\"json:/usage/total_tokens\"}") + "]");
        int requests = 40;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<CompletableFuture<Integer>> sent = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                int used = 10 + i * 10; // 10, 20, ... 400: together 8,200
                sent.add(CompletableFuture.supplyAsync(() -> get("/usage/json/" + used).statusCode(), pool));
            }
            for (CompletableFuture<Integer> status : sent) {
                assertThat(status.get()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }
        awaitRemaining("/usage/x", 10_000 - 8_200);
    }

    @Test
    void withoutAUsableUsageTheReservationStandsAndNothingIsLostOrChargedTwice() {
        install("[" + rule("llm.odd", "/usage/**", "api_key", 1, "1h", 1000,
                "\"cost\":100,\"settle\":{\"from\":\"header:X-Usage-Tokens\"}") + ","
                + rule("llm.cut", "/break/**", "api_key", 1, "1h", 1000,
                        "\"cost\":100,\"settle\":{\"from\":\"response_bytes\"}")
                + "]");
        double invalid = metric("tollgate_settlements_total{outcome=\"invalid\",rule=\"llm.odd\"}");
        get("/usage/header/-3").then().statusCode(200);
        get("/usage/header/1.5").then().statusCode(200);
        get("/usage/header/abc").then().statusCode(200);
        get("/usage/json/7").then().statusCode(200); // no such header: absent
        await().atMost(SETTLED).until(() -> metric("tollgate_settlements_total{outcome=\"invalid\",rule=\"llm.odd\"}")
                - invalid == 3 && metric("tollgate_settlements_total{outcome=\"absent\",rule=\"llm.odd\"}") >= 1);
        assertThat(remaining("/usage/x")).as("four reservations of 100, nothing more").isEqualTo(600);

        // an answer that breaks off mid-body: the client sees a broken answer; the reservation stands
        try {
            get("/break/1000?length=5000");
        } catch (Exception broken) {
            // the connection was cut under the answer, as intended
        }
        await().atMost(SETTLED).until(() -> metric(
                "tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.cut\"}") >= 1);
        assertThat(remaining("/break/x")).isEqualTo(900);
    }

    @Test
    void aHundredMegabyteDownloadIsChargedByteForByte() throws Exception {
        long size = 100L * 1024 * 1024;
        install("[" + rule("bytes.out", "/download/**", "api_key", 1, "1h", 200_000_000,
                "\"unit\":\"content-bytes\",\"settle\":{\"from\":\"response_bytes\"}") + "]");
        HttpResponse<InputStream> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port() + "/download/" + size)).header("X-API-Key", apiKey).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        long received;
        try (InputStream body = answer.body()) {
            received = body.transferTo(OutputStream.nullOutputStream()); // read as it comes, never held whole
        }
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(received).isEqualTo(size);
        awaitRemaining("/download/x", 200_000_000 - size);
    }

    private void awaitRemaining(String path, long expected) {
        await().atMost(SETTLED).untilAsserted(() -> assertThat(remaining(path)).isEqualTo(expected));
    }

    private long remaining(String path) {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=" + path).jsonPath()
                .getLong("rules[0].remaining");
    }

    private Response get(String path) {
        return given().header("X-API-Key", apiKey).get(path);
    }
}
