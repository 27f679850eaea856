package io.tollgate.gateway.warmup;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.awaitReady;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.time.Duration;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.quarkus.arc.Arc;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.GatewayResource;

/**
 * The warm-up against a real Redis: before the gateway reports ready it sends itself requests through the
 * whole path (checks on the store, 429s, the proxy) to its own loopback target, and none reaches the backend;
 * after that its header is an ordinary header.
 */
@QuarkusTest
// a bound a loaded machine does not reach: these tests look at a warm-up that sent all its requests
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "warmup.requests", value = "400"),
        @ResourceArg(name = "warmup.max-time", value = "30s")})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WarmupTest {

    static final String REACHED = "tollgate_warmup_requests_total";
    private static final String DECISIONS = "tollgate_decisions_total{outcome=\"%s\",rule=\"tollgate.warmup\"}";

    @Test
    @Order(1) // first: the backend has had no request of this class yet
    void beforeReadyTheWarmupWentThroughTheProxyToItsOwnTargetNeverToTheBackend() {
        awaitReady(Duration.ofSeconds(40));
        JsonPath warmup = management().get("/q/health/ready").jsonPath().setRootPath("checks.find { it.name == 'warmup' }");
        assertThat(warmup.getString("status")).isEqualTo("UP");
        // 4 opening requests, 400 in lanes and one or more that clear the 429 rule's remembered rejection (more
        // when the warm-up's own checks opened the breaker on a loaded machine: it goes on until it closes)
        long requests = warmup.getLong("data.requests");
        assertThat(requests).as("warm-up requests answered").isGreaterThanOrEqualTo(405L);
        // of every 8, only the one on the 429 rule may be refused; the other 7 are proxied
        long proxied = warmup.getLong("data.proxied");
        assertThat(proxied).as("warm-up requests that reached the loopback target")
                .isGreaterThanOrEqualTo(requests * 7 / 8 - 5)
                .isLessThanOrEqualTo(requests);
        assertThat(metric(REACHED)).isEqualTo(proxied);
        assertThat(backendHits()).as("backend hits").isZero();

        assertThat(metric("tollgate_store_latency_seconds_count")).as("warm-up checks decided by the store")
                .isGreaterThanOrEqualTo(100);
        assertThat(requests - proxied).as("answered 429").isGreaterThanOrEqualTo(3);
        // traffic no user sent: out of the user's decisions (and so of their alerts and the live view)
        for (String outcome : new String[]{"allowed", "rejected", "cached_rejected", "fallback_allowed",
                "fallback_rejected"}) {
            assertThat(metric(DECISIONS.formatted(outcome))).as("warm-up decisions %s", outcome).isZero();
        }
        assertThat(management().get("/q/metrics").asString()).doesNotContain("rule=\"tollgate.warmup\"");
    }

    @Test
    @Order(2)
    void afterReadyTheWarmupHeaderIsAnOrdinaryHeader() {
        awaitReady(Duration.ofSeconds(40));
        double reached = metric(REACHED);
        install("[" + rule("after.warmup", "/after/**", "api_key", 1, "1m", 1, "") + "]");
        resetBackend();

        given().header(WarmupGate.HEADER, secret()).header("X-API-Key", "k").get("/after/x").then()
                .statusCode(200)
                .header("X-Backend", "test")
                .header("RateLimit-Policy", "\"after.warmup\";q=1;w=60")
                .body("uri", is("/after/x"));
        given().header(WarmupGate.HEADER, secret()).header("X-API-Key", "k").get("/after/x").then()
                .statusCode(429)
                .body("violated-policies", contains("after.warmup"));
        given().header(WarmupGate.HEADER, secret()).get("/tollgate-warmup/check").then()
                .statusCode(200)
                .header("X-Backend", "test");

        assertThat(backendHits()).as("backend hits").isEqualTo(2);
        assertThat(metric(REACHED)).as("warm-up requests that reached the loopback target").isEqualTo(reached);
    }

    /** The value of the warm-up header this gateway honoured while it warmed up. */
    String secret() {
        return Arc.container().instance(WarmupGate.class).get().secret();
    }
}
