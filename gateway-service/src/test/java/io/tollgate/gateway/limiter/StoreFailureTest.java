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
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * The store stalls or dies (20 ms timeout): every answer comes well before the stall ends, each rule's
 * failure mode decides, the breaker opens (at once on a dead store, once calls stay unanswered on a stalled
 * one), and all recovers when Redis is back.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "grpc", value = "true"))
class StoreFailureTest {

    /**
     * The stall lasts 3 s: an answer within 1 s was ended by the 20 ms timeout or the breaker, not by the store.
     * The bound leaves room for a loaded machine; how close answers stay to the timeout is a benchmark's figure.
     */
    private static final long BOUND_MS = 1_000;
    /**
     * Counted only while the breaker is open. (The state gauge is not read here: Quarkus test restarts in
     * one JVM keep an earlier application's gauge in the shared registry.)
     */
    private static final String BREAKER_OPEN = "tollgate_store_errors_total{kind=\"breaker_open\"}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private int redisPort;
    /** The Redis started on the same port after the dead-store test killed the original; serves later tests. */
    private static Process replacement;

    @BeforeEach
    void rules() {
        redisPort = RedisCli.port(config("test.redis.nodes"));
        RestAssured.given().baseUri(config("tollgate.rules.url")).put("/__gateways?count=2").then().statusCode(200);
        install("[" + rule("fail.open", "/f-open/**", "api_key", 1000, "1m", 1000, "\"failure_mode\":\"open\"") + ","
                + rule("fail.closed", "/f-closed/**", "api_key", 1000, "1m", 1000, "\"failure_mode\":\"closed\"") + ","
                + rule("fail.local", "/f-local/**", "api_key", 4, "1m", 4, "\"failure_mode\":\"local\"") + "]");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> status("/f-closed/warm", "warm") == 200);
    }

    @AfterAll
    static void stopReplacement() {
        if (replacement != null) {
            replacement.destroy();
        }
    }

    @Test
    void aStalledStoreAnswersByFailureModeWithinTheBound() throws Exception {
        double shortCircuits = metric(BREAKER_OPEN);
        RedisCli.run(redisPort, "CLIENT", "PAUSE", "3000", "ALL");
        assertTimed("/f-open/a", "stall", 200);
        assertTimed("/f-closed/a", "stall", 503);
        // local: limit 4 shared by 2 live gateways = 2 here
        assertTimed("/f-local/a", "stall", 200);
        assertTimed("/f-local/a", "stall", 200);
        assertTimed("/f-local/a", "stall", 429);
        // a stalled store is a silent one: once calls stay unanswered for tollgate.store.breaker.unanswered-after,
        // the breaker opens and checks no longer wait for the timeout
        Awaitility.await().atMost(Duration.ofMillis(2_500)).pollInterval(Duration.ofMillis(1)).until(() -> {
            assertTimed("/f-open/b", "stall", 200);
            return metric(BREAKER_OPEN) > shortCircuits;
        });
        RedisCli.run(redisPort, "CLIENT", "UNPAUSE");
        // closed-mode rules pass again only once the breaker has closed on a successful probe
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> status("/f-closed/a", "stall") == 200);
        String metrics = management().get("/q/metrics").asString();
        assertThat(metrics).contains("outcome=\"fallback_allowed\",rule=\"fail.open\"",
                "outcome=\"fallback_rejected\",rule=\"fail.closed\"", "outcome=\"fallback_rejected\",rule=\"fail.local\"",
                "tollgate_store_errors_total{kind=\"timeout\"}");
    }

    @Test
    void aDeadStoreAnswersByFailureModeAndRecoversWhenItReturns() throws Exception {
        double shortCircuits = metric(BREAKER_OPEN);
        RedisCli.run(redisPort, "SHUTDOWN", "NOSAVE");
        for (int i = 0; i < 20; i++) {
            assertTimed("/f-open/d", "dead", 200);
            assertTimed("/f-closed/d", "dead", 503);
        }
        assertThat(metric(BREAKER_OPEN)).as("checks answered by the open breaker").isGreaterThan(shortCircuits);
        replacement = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(redisPort), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> status("/f-closed/d", "dead") == 200);
        assertThat(replacement.waitFor(0, TimeUnit.SECONDS)).as("the replacement Redis still runs").isFalse();
    }

    private void assertTimed(String path, String key, int expected) throws Exception {
        long start = System.nanoTime();
        int status = status(path, key);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(status).as("%s", path).isEqualTo(expected);
        assertThat(ms).as("answer time of %s", path).isLessThanOrEqualTo(BOUND_MS);
    }

    private int status(String path, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .header("X-API-Key", key)
                .timeout(Duration.ofSeconds(5))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static double metric(String name) {
        for (String line : management().get("/q/metrics").asString().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no metric " + name);
    }
}
