package io.tollgate.gateway.limiter;

import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CheckCall;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.CounterScripts;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * A store that answers every call 80 ms late, behind a 20 ms timeout: every check is decided by its failure
 * mode, yet the breaker stays closed (the store answers), the late answers are read, and the local failure
 * mode never admits beyond what the store last said; what the {@code open} mode let through that the store
 * rejected is counted.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "redis-delay-ms", value = "80"))
class SlowStoreTest {

    /** 5 a minute: nothing refills during the test. */
    private static final Policy POLICY = new Policy(Algorithm.TOKEN_BUCKET, 5, 60_000, 5);

    private int redisPort;

    @BeforeEach
    void rules() {
        redisPort = Integer.parseInt(config("test.redis.port"));
        RestAssured.given().baseUri(config("tollgate.rules.url")).put("/__gateways?count=1").then().statusCode(200);
        install("[" + rule("slow.local", "/slow-local/**", "api_key", 5, "1m", 5, "\"failure_mode\":\"local\"") + ","
                + rule("slow.open", "/slow-open/**", "api_key", 5, "1m", 5, "\"failure_mode\":\"open\"") + "]");
    }

    @Test
    void theLocalFailureModeNeverAdmitsBeyondTheStoresWordAndTheBreakerStaysClosed() {
        String client = "slow-" + System.nanoTime();
        spendInTheStore("slow.local", client, 2); // the store holds 3 of 5
        // the start-up warm-up's checks timed out too: their late answers come first
        double late = settledLateAnswers();
        double breakerOpen = metric("tollgate_store_errors_total{kind=\"breaker_open\"}");
        double timeouts = metric("tollgate_store_errors_total{kind=\"timeout\"}");
        double unanswered = metric("tollgate_store_errors_total{kind=\"unanswered\"}");

        // no word yet: this gateway's share (5 of 5) admits it; the store, answering late, leaves 2
        assertThat(status("/slow-local/1", client)).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> metric("tollgate_store_late_answers_total") >= late + 1);
        // five at once: the share would admit 4, the store's word says 2. On a busy machine the loop may read an
        // answer in time for some of them; the store decides those, and what passes beyond the store's count
        // because the two overlap is counted as over-admission
        double byFallback = decisions("fallback_allowed");
        double byStore = decisions("allowed");
        double overadmitted = metric("tollgate_fallback_overadmitted_total{rule=\"slow.local\"}");
        List<Integer> statuses = concurrently("/slow-local/1", client, 5);
        assertThat(statuses).containsOnly(200, 429);
        long admitted = statuses.stream().filter(s -> s == 200).count();
        assertThat(decisions("fallback_allowed") - byFallback).as("the failure mode admits what the store said is left")
                .isLessThanOrEqualTo(2);
        assertThat(admitted).isEqualTo((long) (decisions("fallback_allowed") - byFallback + decisions("allowed") - byStore));

        double timedOut = metric("tollgate_store_errors_total{kind=\"timeout\"}") - timeouts;
        assertThat(timedOut).isGreaterThanOrEqualTo(1);
        assertThat(settledLateAnswers() - late).as("each timed-out check answered late").isEqualTo(timedOut);
        assertThat(admitted).as("beyond the store's 2, only what is counted as over-admitted")
                .isLessThanOrEqualTo(2 + (long) (metric("tollgate_fallback_overadmitted_total{rule=\"slow.local\"}")
                        - overadmitted));
        assertThat(metric("tollgate_store_errors_total{kind=\"breaker_open\"}")).as("the breaker stayed closed")
                .isEqualTo(breakerOpen);
        assertThat(metric("tollgate_store_errors_total{kind=\"unanswered\"}")).isEqualTo(unanswered);
        assertThat(status("/slow-local/1", client)).as("the store has nothing left").isEqualTo(429);
    }

    @Test
    void whatTheOpenFailureModeAdmittedAndTheStoreRejectedIsCounted() {
        double before = metric("tollgate_fallback_overadmitted_total{rule=\"slow.open\"}");
        for (int i = 0; i < 3; i++) {
            String client = "open-" + i + "-" + System.nanoTime();
            spendInTheStore("slow.open", client, 5); // the store holds nothing
            assertThat(status("/slow-open/1", client)).as("open: the failure mode admits").isEqualTo(200);
        }
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> metric("tollgate_fallback_overadmitted_total{rule=\"slow.open\"}") == before + 3);
    }

    /**
     * Spends {@code n} of {@code client}'s tokens of {@code rule} (its API key's bucket) directly in Redis, as other gateways
     * would.
     */
    private void spendInTheStore(String rule, String client, int n) {
        CheckCall call = CheckCall.of(List.of(CounterKeys.key(rule, CounterKeys.secret(client))), List.of(POLICY), 1,
                OptionalLong.empty());
        List<String> args = new ArrayList<>(List.of("EVAL", CounterScripts.check().text()));
        args.addAll(call.evalArgs());
        for (int i = 0; i < n; i++) {
            RedisCli.run(redisPort, args.toArray(String[]::new));
        }
    }

    /** The statuses of {@code n} requests sent at once, each on its own connection. */
    private static List<Integer> concurrently(String path, String client, int n) {
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            sent.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                    .header("X-API-Key", client)
                    .timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.discarding()));
        }
        return sent.stream().map(f -> f.join().statusCode()).toList();
    }

    /** The late answers once none is on its way: the count holds still across two reads 200 ms apart. */
    private static double settledLateAnswers() {
        AtomicReference<Double> last = new AtomicReference<>(-1.0);
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            double now = metric("tollgate_store_late_answers_total");
            return now == last.getAndSet(now);
        });
        return last.get();
    }

    private static double decisions(String outcome) {
        return metric("tollgate_decisions_total{outcome=\"" + outcome + "\",rule=\"slow.local\"}");
    }

    private static int status(String path, String client) {
        return RestAssured.given().header("X-API-Key", client).get(path).statusCode();
    }

    /** The value of one Prometheus series of the gateway, 0 when it has none yet. */
    private static double metric(String series) {
        for (String line : management().get("/q/metrics").asString().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        return 0;
    }
}
