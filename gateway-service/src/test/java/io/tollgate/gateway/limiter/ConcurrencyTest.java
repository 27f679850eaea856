package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.H2Client;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.http.HttpClientRequest;

/**
 * {@code algorithm: concurrency} through HTTP on a real Redis, with a backend that holds its answers until told:
 * a slot is taken per request in flight and given back when the exchange ends, however it ends (answered, the
 * client gone or its HTTP/2 stream reset, which logs no error, the backend broken, the request refused by another
 * rule after all).
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "store.timeout", value = "1s"),
        // answers are held for as long as a test needs: the backend's silence must not end them first
        @ResourceArg(name = "upstream-timeout", value = "60s")})
class ConcurrencyTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "inflight-" + UUID.randomUUID();
        resetBackend();
        install("""
                [{"id": "inflight", "match": {"path": "/**"}, "key": "api_key", "algorithm": "concurrency",
                  "limit": 2, "failure_mode": "closed"},
                 {"id": "inflight.tenant", "match": {"path": "/tenant/**"}, "key": "header:X-Tenant", "limit": 1,
                  "period": "1h"}]""");
    }

    @AfterEach
    void releaseHeld() {
        backend("/__release");
    }

    @Test
    void twoInFlightTheThirdRefusedWithoutMemoryAndEachAnswerGivesItsSlotBack() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            held.add(send("/hold", Duration.ofSeconds(30)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> heldByBackend() == 2);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> refused = send("/hold", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(refused.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"inflight\";q=2;qu=\"concurrent-requests\"");
        }
        assertThat(remaining()).isZero();

        backend("/__release");
        for (CompletableFuture<HttpResponse<String>> answer : held) {
            assertThat(answer.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        await("both slots given back").atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
        // nothing remembered of the refusals: the next request passes at once
        assertThat(send("/anything", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void aRequestHeldLongerThanItsLeaseKeepsItsSlotWhileItRuns() throws Exception {
        install("""
                [{"id": "inflight", "match": {"path": "/**"}, "key": "api_key", "algorithm": "concurrency",
                  "limit": 1, "slot_ttl": "1s", "failure_mode": "closed"}]""");
        CompletableFuture<HttpResponse<String>> held = send("/hold", Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> heldByBackend() == 1);
        // three lease times and more: without renewal the slot would have come back after the first
        await("the running request holds the one slot throughout").during(Duration.ofMillis(3500))
                .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> send("/hold", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).statusCode() == 429);
        backend("/__release");
        assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        await("the slot given back once the answer ends").atMost(Duration.ofSeconds(5)).until(() -> remaining() == 1);
    }

    @Test
    void aClientThatGivesUpFreesItsSlotAndTheBackendsRequestIsStopped() throws Exception {
        // patient enough to reach the backend, and to be seen there, on a busy machine (a client gone before its
        // check answers is never forwarded)
        CompletableFuture<HttpResponse<String>> impatient = send("/hold", Duration.ofSeconds(3));
        await().atMost(Duration.ofSeconds(10)).until(() -> heldByBackend() == 1);
        assertThat(remaining()).isEqualTo(1);
        assertThat(impatient).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(Exception.class)
                .withCauseInstanceOf(HttpTimeoutException.class);
        await("the slot is back, and the backend no longer holds the request").atMost(Duration.ofSeconds(5))
                .until(() -> remaining() == 2 && heldByBackend() == 0);
    }

    @Test
    void http2UploadsResetWhileProxiedFreeTheirSlotsAndLogNoError() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {

            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    errors.add(record.getLoggerName() + ": " + record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try (H2Client h2 = new H2Client(port(), false)) {
            for (int i = 0; i < 5; i++) {
                // an upload under way: its body is still to come when the client resets it
                HttpClientRequest upload = h2.sendHead("/hold", apiKey);
                await("the upload holds a slot").atMost(Duration.ofSeconds(10)).until(() -> remaining() == 1);
                upload.reset();
                await("the slot is back").atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
            }
        } finally {
            root.removeHandler(capture);
        }
        assertThat(errors).as("a client's reset is no error").isEmpty();
    }

    @Test
    void explainCountsOnlyTheLiveLeases() {
        String key = operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/hold").jsonPath()
                .getString("rules[0].key");
        int redis = Integer.parseInt(config("test.redis.port"));
        String[] time = RedisCli.run(redis, "TIME").split("\n");
        long nowMicros = Long.parseLong(time[0].strip()) * 1_000_000 + Long.parseLong(time[1].strip());
        // a lease that ended a second ago, left in the set (its gateway died; no check has swept it since), and
        // the key kept for a minute by a later lease's expiry
        RedisCli.run(redis, "ZADD", key, Long.toString(nowMicros - 1_000_000), "17");
        RedisCli.run(redis, "PEXPIRE", key, "60000");
        assertThat(remaining()).as("an expired lease holds no slot").isEqualTo(2);
        RedisCli.run(redis, "ZADD", key, Long.toString(nowMicros + 60_000_000), "18");
        assertThat(remaining()).as("a live one does").isEqualTo(1);
        var explained = operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/hold").jsonPath();
        assertThat(explained.getBoolean("rules[0].stored")).isTrue();
        RedisCli.run(redis, "ZREM", key, "18");
        assertThat(operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/hold").jsonPath()
                .getBoolean("rules[0].stored")).as("a set of expired leases holds nothing").isFalse();
    }

    @Test
    void aBackendThatBreaksOffOrCannotBeReachedFreesTheSlot() throws Exception {
        for (int i = 0; i < 3; i++) {
            try {
                send("/break/1000?length=5000", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
            } catch (Exception broken) {
                // the answer was cut, as the backend means it to be
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
        // a backend that refuses the connection: 502
        assertThat(send("/dead/x", Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(502);
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    @Test
    void aRequestRefusedByAnotherClientsRuleGivesItsSlotBackAtOnce() throws Exception {
        String tenant = "t-" + UUID.randomUUID();
        assertThat(given().header("X-API-Key", apiKey).header("X-Tenant", tenant).get("/tenant/a").statusCode())
                .isEqualTo(200);
        // the tenant's one request an hour is spent: the lease the check took in the API key's bucket goes back
        assertThat(given().header("X-API-Key", apiKey).header("X-Tenant", tenant).get("/tenant/b").statusCode())
                .isEqualTo(429);
        await().atMost(Duration.ofSeconds(5)).until(() -> remaining() == 2);
    }

    private CompletableFuture<HttpResponse<String>> send(String path, Duration timeout) {
        return CLIENT.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .header("X-API-Key", apiKey).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
    }

    private long remaining() {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/hold").jsonPath()
                .getLong("rules[0].remaining");
    }

    private static int heldByBackend() {
        return backend("/__held").jsonPath().getInt("held");
    }

    private static io.restassured.response.Response backend(String path) {
        return RestAssured.given().baseUri(config("test.backend.url")).get(path);
    }
}
