package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * The limiter with its remembered rejections off ({@code tollgate.rejections.remembered=false}; token leases are
 * off in the tests of the store path too): the pipeline is the store alone, every request is decided there, and
 * the limits are as exact as with every stage on.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "rejections", value = "off"),
        @ResourceArg(name = "store.timeout", value = "1s")})
class RejectionsNotRememberedTest {

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "k-" + UUID.randomUUID();
        resetBackend();
    }

    @Test
    void everyRejectionIsTheStoresWord() {
        install("[" + rule("unremembered.one", "/flood/**", "api_key", 1, "1m", 1, "") + "]");
        get("/flood/x").then().statusCode(200);
        int port = RedisCli.port(config("test.redis.nodes"));
        long before = RedisCli.calls(port, "get");
        int n = 200;
        for (int i = 0; i < n; i++) {
            get("/flood/x").then().statusCode(429).header("Retry-After", org.hamcrest.Matchers.notNullValue());
        }
        assertThat(RedisCli.calls(port, "get") - before).as("store checks for %d rejected requests", n).isEqualTo(n);
        assertThat(backendHits()).isEqualTo(1);
        String metrics = management().get("/q/metrics").asString();
        assertThat(metrics).containsPattern(
                "tollgate_decisions_total\\{outcome=\"rejected\",rule=\"unremembered.one\"} " + n + "\\.0");
        assertThat(metrics).doesNotContainPattern(
                "tollgate_decisions_total\\{outcome=\"cached_rejected\",rule=\"unremembered.one\"}");
    }

    @Test
    void theLimitHoldsExactly() {
        install("[" + rule("unremembered.five", "/five/**", "api_key", 5, "1h", 5, "") + "]");
        for (int i = 4; i >= 0; i--) {
            get("/five/x").then().statusCode(200).header("RateLimit-Remaining", Integer.toString(i));
        }
        for (int i = 0; i < 20; i++) {
            get("/five/x").then().statusCode(429);
        }
        assertThat(backendHits()).isEqualTo(5);
    }

    private Response get(String path) {
        return given().header("X-API-Key", apiKey).get(path);
    }
}
