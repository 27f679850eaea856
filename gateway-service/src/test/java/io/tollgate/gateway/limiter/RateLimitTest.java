package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.awaitReady;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.decisions;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.Flood;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.tollgate.gateway.support.RedisCli;

/** The limiter through HTTP against a real Redis and a real backend. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class RateLimitTest {

    /** Requests sent at once in the worked example's bursts. */
    private static final int SENDERS = 8;

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "k-" + UUID.randomUUID();
        resetBackend();
    }

    @Test
    void readyOnlyOnceTheStorePathIsWarm() {
        // the warm-up runs checks on every event loop before the gateway reports ready, so the first client
        // does not pay for class loading and connecting inside tollgate.store.timeout
        awaitReady();
        management().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'warmup' }.status", is("UP"));
        int port = RedisCli.port(config("test.redis.nodes"));
        assertThat(checksRun(port)).as("checks Redis ran")
                .isGreaterThanOrEqualTo(20);
    }

    @Test
    void workedExampleBurstOfTwentyThenRetryAfterOne() throws Exception {
        install("[{\"id\":\"orders.write\",\"match\":{\"methods\":[\"POST\",\"PUT\"],\"path\":\"/orders/**\"},"
                + "\"key\":\"api_key\",\"algorithm\":\"token_bucket\",\"limit\":10,\"period\":\"1s\",\"burst\":20}]");
        long start = System.nanoTime();
        Response first = post("/orders/1");
        first.then()
                .statusCode(200)
                .header("RateLimit-Remaining", "19")
                .header("RateLimit-Limit", "20")
                .header("RateLimit-Policy", "\"orders.write\";q=20;w=2")
                .header("RateLimit", "\"orders.write\";r=19;t=1");
        // bursts of parallel requests until one is rejected: at any speed of this machine they outrun the refill
        int allowed = 1;
        Response rejected = null;
        ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
        try {
            long deadline = start + Duration.ofSeconds(60).toNanos();
            while (rejected == null && System.nanoTime() < deadline) {
                List<Future<Response>> burst = new ArrayList<>();
                for (int i = 0; i < SENDERS; i++) {
                    burst.add(senders.submit(() -> post("/orders/1")));
                }
                for (Future<Response> sent : burst) {
                    Response r = sent.get();
                    if (r.statusCode() == 429) {
                        rejected = rejected == null ? r : rejected;
                    } else {
                        assertThat(r.statusCode()).as(r.asString()).isEqualTo(200);
                        allowed++;
                    }
                }
            }
        } finally {
            senders.shutdownNow();
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        // 20 from the burst, plus what refilled at 10/s while the requests were sent
        assertThat(allowed).isBetween(20, 20 + (int) (elapsedMs / 100) + 1);
        assertThat(rejected).isNotNull();
        rejected.then()
                .statusCode(429)
                .header("Retry-After", "1")
                .header("Cache-Control", "no-store")
                .header("RateLimit-Remaining", "0")
                .contentType("application/problem+json")
                .body("type", is("quota-exceeded"))
                .body("status", is(429))
                .body("violated-policies", contains("orders.write"));
        assertThat(backendHits()).as("a rejected request never reaches the backend").isEqualTo(allowed);
        given().header("X-API-Key", apiKey).get("/orders/1").then().statusCode(200).header("RateLimit-Policy",
                (String) null);
    }

    @Test
    void aRejectedUploadThatHoldsItsBodyForA100IsAnsweredWithoutIt() throws Exception {
        install("[" + rule("upload.one", "/upload-one/**", "api_key", 1, "1m", 1, "") + "]");
        get("/upload-one/a").then().statusCode(200);
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /upload-one/a HTTP/1.1\r\nHost: test\r\nX-API-Key: " + apiKey
                    + "\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n").getBytes(US_ASCII));
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream());
            assertThat(answer.status()).as("no 100 Continue first: the body is not wanted").isEqualTo(429);
            assertThat(answer.header("Connection")).isEqualTo("close");
            assertThat(socket.getInputStream().read()).as("the connection closes after the answer").isEqualTo(-1);
        }
        assertThat(backendHits()).isEqualTo(1);
    }

    @Test
    void retryAfterIsRoundedUpNeverZero() {
        install("[" + rule("slow.one", "/slow-one/**", "api_key", 1, "10s", 1, "") + "]");
        get("/slow-one/a").then().statusCode(200).header("RateLimit-Remaining", "0");
        Response second = get("/slow-one/a");
        second.then().statusCode(429);
        assertThat(Long.parseLong(second.getHeader("Retry-After"))).isBetween(9L, 10L);
    }

    @Test
    void severalRulesAreAllOrNothingAndTheTightestIsReported() {
        install("[" + rule("multi.all", "/multi/**", "api_key", 3, "1m", 3, "") + ","
                + rule("multi.y", "/multi/y/**", "api_key", 1, "1m", 1, "") + "]");
        get("/multi/y").then()
                .statusCode(200)
                .header("RateLimit-Policy", "\"multi.y\";q=1;w=60")
                .header("RateLimit-Remaining", "0");
        get("/multi/y").then().statusCode(429).body("violated-policies", contains("multi.y"));
        // multi.all lost no token to the rejected request: 3 - 1 (first request) - 1 (this one) = 1
        get("/multi/other").then()
                .statusCode(200)
                .header("RateLimit-Policy", "\"multi.all\";q=3;w=60")
                .header("RateLimit-Remaining", "1");
        assertThat(backendHits()).isEqualTo(2);
    }

    @Test
    void rulesOfAnotherClientGiveBackWhatTheySpentWhenOneRejects() {
        // an api_key rule and an ip rule count by different clients: two calls, so not all or nothing in one
        // script; the one that allowed gives its token back once the request is refused
        String run = UUID.randomUUID().toString().substring(0, 8);
        String byKey = "gb.key." + run;
        String byIp = "gb.ip." + run;
        install("[" + rule(byKey, "/give-back/**", "api_key", 5, "1h", 5, "") + ","
                + rule(byIp, "/give-back/**", "ip", 1, "1h", 1, "") + "]");
        get("/give-back/x").then().statusCode(200);
        for (int i = 0; i < 3; i++) {
            get("/give-back/x").then().statusCode(429).body("violated-policies", contains(byIp));
        }
        assertThat(backendHits()).isEqualTo(1);
        Awaitility.await("the refused requests' tokens back in " + byKey)
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(operations().header("X-API-Key", apiKey)
                        .get("/tollgate/explain?path=/give-back/x&ip=127.0.0.1")
                        .then().statusCode(200).extract().jsonPath()
                        .getLong("rules.find { it.id == '" + byKey + "' }.remaining"))
                        .as("5 less the one request that went through").isEqualTo(4));
    }

    @Test
    void missingKeyIs401NamingTheHeaderUnlessTheRuleSkips() {
        install("[" + rule("keyed.strict", "/keyed/**", "api_key", 5, "1m", 5, "") + ","
                + rule("tenant.loose", "/loose/**", "header:X-Tenant", 5, "1m", 5, "\"missing_key\":\"skip\"") + "]");
        given().get("/keyed/1")
                .then()
                .statusCode(401)
                .contentType("application/problem+json")
                .body("missing", is("X-API-Key"))
                .body("status", is(401));
        given().get("/loose/1").then().statusCode(200).header("RateLimit-Policy", (String) null);
        assertThat(backendHits()).isEqualTo(1);
    }

    @Test
    void ipKeysIgnoreForwardedForFromAnUntrustedPeer() {
        install("[" + rule("ip.one", "/by-ip/**", "ip", 1, "1m", 1, "") + "]");
        given().header("X-Forwarded-For", "198.51.100.1").get("/by-ip/a").then().statusCode(200);
        // no trusted proxies are configured: a new X-Forwarded-For is no new client
        given().header("X-Forwarded-For", "198.51.100.2").get("/by-ip/a").then().statusCode(429);
    }

    @Test
    void oddKeysNeverCauseA5xxAndStoreShortKeysWithExpiry() {
        // a slow refill (1 an hour) keeps each key's expiry long enough to be seen on a loaded machine
        install("[" + rule("odd.keys", "/odd/**", "header:X-Tenant", 1, "1h", 100, "") + "]");
        List<String> keys = List.of("a".repeat(10_000), "ключ-🔑-鍵", "{braces}{x}", "a:b:c", "sp ace", "*?[]");
        for (String key : keys) {
            int status = given().header("X-Tenant", key).get("/odd/1").statusCode();
            assertThat(status).as("key of %d chars", key.length()).isEqualTo(200);
        }
        int port = RedisCli.port(config("test.redis.nodes"));
        String[] stored = RedisCli.run(port, "--scan", "--pattern", "rl:odd.keys:*").split("\n");
        assertThat(stored).hasSize(keys.size());
        for (String key : stored) {
            assertThat(key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(200);
            assertThat(Long.parseLong(RedisCli.run(port, "PTTL", key))).as("TTL of %s", key).isPositive();
        }
    }

    @Test
    void aRememberedRejectionCostsNoStoreCall() {
        install("[" + rule("flood.one", "/flood/**", "api_key", 1, "1m", 1, "") + "]");
        get("/flood/x").then().statusCode(200);
        int port = RedisCli.port(config("test.redis.nodes"));
        long before = checksRun(port);
        for (int i = 0; i < 1000; i++) {
            get("/flood/x").then().statusCode(429).header("Retry-After", org.hamcrest.Matchers.notNullValue());
        }
        long storeCalls = checksRun(port) - before;
        // the first request took the only token: the gateway knows none is back for a minute
        assertThat(storeCalls).as("store calls for 1000 rejected requests").isZero();
        assertThat(backendHits()).isEqualTo(1);
        String metrics = management().get("/q/metrics").asString();
        assertThat(metrics).containsPattern(
                "tollgate_decisions_total\\{outcome=\"cached_rejected\",rule=\"flood.one\"} 1000\\.0");
    }

    @Test
    void aFloodOnManyConnectionsCostsAboutOneStoreCallPerRefill() throws Exception {
        // one token every 500 ms: each refill lets one request through; the rest of the flood is answered from
        // memory, and when a token may be back only ONE request probes the store (single flight)
        install("[" + rule("flood.many", "/flood-many/**", "api_key", 2, "1s", 1, "") + "]");
        get("/flood-many/x").then().statusCode(200);
        int port = RedisCli.port(config("test.redis.nodes"));
        long before = checksRun(port);
        long start = System.nanoTime();
        long end = start + java.time.Duration.ofMillis(2_500).toNanos();
        long bound = start + java.time.Duration.ofSeconds(30).toNanos();
        // 2.5 s, and on a slow machine longer: until each of the 16 clients has sent 25 requests (bounded)
        Map<Integer, Integer> statuses = Flood.statuses("/flood-many/x", 16, c -> apiKey,
                n -> System.nanoTime() < bound && (System.nanoTime() < end || n < 25));
        assertThat(statuses.keySet()).as("statuses").isSubsetOf(200, 429);
        int answered = statuses.values().stream().mapToInt(Integer::intValue).sum();
        double refills = (System.nanoTime() - start) / 500_000_000.0;
        long storeCalls = checksRun(port) - before;
        assertThat(answered).as("the flood was a flood").isGreaterThan(200);
        // per refill: the probe that takes the token, and nothing else: the gateway remembers the spent
        // bucket until the next token. Without single flight each of the 16 connections reached the store
        // per refill (79 store calls for 3,147 requests over 5 refills, measured); with single flight but
        // times counted from when the check was sent, two per refill (one early probe rejected)
        assertThat(storeCalls).as("store calls for %d requests over %.1f refills (the gateway's decisions: %s)",
                answered, refills, decisions("flood.many"))
                .isLessThanOrEqualTo((long) Math.ceil(refills + 1) + 2);
        assertThat(backendHits()).as("allowed").isBetween((long) Math.floor(refills) - 1, (long) Math.ceil(refills) + 2);
    }

    @Test
    void shadowRulesCountButNeverReject() {
        install("[" + rule("shadow.one", "/shadow/**", "api_key", 1, "1m", 1, "\"shadow\":true") + "]");
        for (int i = 0; i < 5; i++) {
            get("/shadow/x").then().statusCode(200);
        }
        assertThat(backendHits()).isEqualTo(5);
        assertThat(management().get("/q/metrics").asString()).contains(
                "tollgate_decisions_total{outcome=\"shadow_rejected\",rule=\"shadow.one\"} 4.0");
    }

    @Test
    void metricsNameStoreLatencyAndRulesVersion() {
        long version = install("[" + rule("metrics.one", "/metrics-one/**", "api_key", 5, "1m", 5, "") + "]");
        get("/metrics-one/x").then().statusCode(200);
        // Micrometer holds a gauge's object weakly: after a collection, a gauge bound to anything but this
        // application's live objects reads NaN
        System.gc();
        String metrics = management().get("/q/metrics").asString();
        assertThat(metrics).contains("tollgate_store_latency_seconds_bucket",
                "tollgate_decisions_total{outcome=\"allowed\",rule=\"metrics.one\"} 1.0");
        assertThat(gauge(metrics, "tollgate_store_breaker_state")).as("breaker state: closed").isEqualTo(0.0);
        assertThat(gauge(metrics, "tollgate_rules_version")).as("rules version").isEqualTo((double) version);
        assertThat(gauge(metrics, "tollgate_rules_age_seconds")).as("rules age, s").isBetween(0.0, 60.0);
        List<Double> bounds = Pattern.compile("tollgate_store_latency_seconds_bucket\\{le=\"([0-9.E-]+)\"")
                .matcher(metrics).results().map(m -> Double.parseDouble(m.group(1))).toList();
        assertThat(bounds).as("store latency buckets below 1 ms, where a healthy check falls").anyMatch(
                b -> b <= 0.0001).anyMatch(b -> b > 0.0001 && b < 0.001);
    }

    /** The value of an untagged gauge in a Prometheus scrape; fails the test when the scrape lacks it. */
    private static double gauge(String metrics, String name) {
        return Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(metrics).results()
                .map(m -> Double.parseDouble(m.group(1))).findFirst()
                .orElseThrow(() -> new AssertionError("no gauge " + name + " in the scrape"));
    }

    /**
     * Checks Redis has run: the script reads each bucket with one {@code GET}, which Redis counts as a command,
     * where checks coalesced in one event-loop turn share one {@code EVALSHA}.
     */
    private static long checksRun(int port) {
        return RedisCli.calls(port, "get");
    }

    private Response get(String path) {
        return given().header("X-API-Key", apiKey).get(path);
    }

    private Response post(String path) {
        return given().header("X-API-Key", apiKey).body("{}").post(path);
    }
}
