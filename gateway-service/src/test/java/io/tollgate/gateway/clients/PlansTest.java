package io.tollgate.gateway.clients;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.decisions;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;

import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.DirectoryControl;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/**
 * Plans and overrides through HTTP on a real Redis, the directory served by the test rules service. Its poll is
 * a minute away, so every change here reaches the gateway through the watch stream.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "poll-interval", value = "60s"),
        @ResourceArg(name = "store.timeout", value = "1s")})
class PlansTest {

    static final String PLANS = "\"plans\":{\"free\":{\"limit\":2},\"pro\":{\"limit\":10},\"blocked\":{\"limit\":0}}";

    private String id;

    @BeforeEach
    void rules() {
        id = UUID.randomUUID().toString().substring(0, 8);
        install("[" + rule("plans.key", "/plans/**", "api_key", 5, "1h", 5, PLANS) + "]");
    }

    @Test
    void aFreeClientGetsTheFreeLimitAProClientTheProLimitAnUnknownKeyTheRulesOwn() {
        DirectoryControl.apply(clients(entry("free-" + id, "{\"plan\":\"free\"}"), entry("pro-" + id, "{\"plan\":\"pro\"}")));

        assertThat(admitted("free-" + id)).isEqualTo(2);
        assertThat(admitted("pro-" + id)).isEqualTo(10);
        assertThat(admitted("stranger-" + id)).isEqualTo(5);
        // the headers report each one's policy: burst and the time a full burst takes to refill
        get("free-" + id).then().header("RateLimit-Policy", "\"plans.key\";q=2;w=3600").header("RateLimit-Limit", "2");
        get("pro-" + id).then().header("RateLimit-Policy", "\"plans.key\";q=10;w=3600").header("RateLimit-Limit", "10");
        get("stranger-" + id).then().header("RateLimit-Policy", "\"plans.key\";q=5;w=3600");
    }

    @Test
    void aPlanOfLimitZeroRejectsAtOnceWithoutAStoreCall() {
        DirectoryControl.apply(clients(entry("blocked-" + id, "{\"plan\":\"blocked\"}")));
        int port = RedisCli.port(config("test.redis.nodes"));
        long checksBefore = RedisCli.calls(port, "evalsha") + RedisCli.calls(port, "eval");
        for (int i = 0; i < 3; i++) {
            get("blocked-" + id).then()
                    .statusCode(429)
                    .header("Retry-After", "3600")
                    .header("RateLimit-Policy", "\"plans.key\";q=0;w=3600")
                    .body("violated-policies", contains("plans.key"));
        }
        assertThat(RedisCli.calls(port, "evalsha") + RedisCli.calls(port, "eval")).as("store calls")
                .isEqualTo(checksBefore);
        assertThat(decisions("plans.key")).contains("outcome=\"blocked\"");
    }

    @Test
    void anOverrideAppliedThenRemovedIsEnforcedWithinOneSecond() {
        String key = "contract-" + id;
        DirectoryControl.apply(clients(entry(key, "{\"plan\":\"free\"}")));
        get(key).then().header("RateLimit-Policy", "\"plans.key\";q=2;w=3600");

        DirectoryControl.push(clients(entry(key, "{\"plan\":\"free\",\"overrides\":{\"plans.key\":"
                + "{\"limit\":50,\"period\":\"1m\"}}}")));
        // the live bucket keeps what it holds and refills at the override's rate (docs/rules.md, "Changing a limit")
        awaitPolicy(key, "\"plans.key\";q=50;w=60", Duration.ofSeconds(1));

        DirectoryControl.push(clients(entry(key, "{\"plan\":\"free\"}")));
        awaitPolicy(key, "\"plans.key\";q=2;w=3600", Duration.ofSeconds(1));
        DirectoryControl.push(clients("{\"key\":\"" + key + "\",\"deleted\":true}"));
        awaitPolicy(key, "\"plans.key\";q=5;w=3600", Duration.ofSeconds(1));
    }

    /** Waits at most {@code bound} until the key's requests report {@code policy} (allowed or not). */
    static void awaitPolicy(String key, String policy, Duration bound) {
        Awaitility.await(key + " under " + policy)
                .atMost(bound)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> policy.equals(get(key).getHeader("RateLimit-Policy")));
    }

    /** How many requests in a row pass before the first 429 (at most 100). */
    static int admitted(String key) {
        for (int i = 0; i < 100; i++) {
            if (get(key).statusCode() == 429) {
                return i;
            }
        }
        return 100;
    }

    static Response get(String key) {
        return given().header("X-API-Key", key).get("/plans/x");
    }

    static String clients(String... entries) {
        return "{\"clients\":[" + String.join(",", entries) + "]}";
    }

    static String entry(String key, String entry) {
        return "{\"key\":\"" + key + "\",\"entry\":" + entry + "}";
    }
}
