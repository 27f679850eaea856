package io.tollgate.gateway.limiter;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;

import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.gateway.support.GatewayResource;

/** A rule's cost through HTTP on a real Redis: each request spends it, all-or-nothing with the request's other rules. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class CostTest {

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "cost-" + UUID.randomUUID();
        resetBackend();
    }

    @Test
    void costFiveOnABurstOfTwentyAllowsFourThenTellsWhenFiveAreBack() {
        // 1 a second: the fifth request waits for 5 new units, 5 s
        install("[" + rule("cost.five", "/cost/**", "api_key", 1, "1s", 20, "\"cost\":5") + "]");
        for (int remaining : new int[]{15, 10, 5, 0}) {
            get("/cost/x").then().statusCode(200).header("RateLimit-Remaining", Integer.toString(remaining))
                    .header("RateLimit-Policy", "\"cost.five\";q=20;w=20");
        }
        get("/cost/x").then().statusCode(429).header("Retry-After", "5").body("violated-policies",
                contains("cost.five"));
        assertThat(backendHits()).as("the rejected request never reached the backend").isEqualTo(4);
        assertThat(operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/cost/x").jsonPath()
                .getLong("rules[0].policy.cost")).isEqualTo(5);
    }

    @Test
    void aDearRuleAndACheapOneOfOneRequestSpendTogetherOrNotAtAll() {
        install("[" + rule("cost.dear", "/both/**", "api_key", 1, "1h", 10, "\"cost\":4") + ","
                + rule("cost.cheap", "/both/**", "api_key", 1, "1h", 100, "") + "]");
        get("/both/x").then().statusCode(200);
        get("/both/x").then().statusCode(200);
        // the dear rule holds 2 of the 4 a third request needs: the cheap one spends nothing either
        get("/both/x").then().statusCode(429).body("violated-policies", contains("cost.dear"));
        assertThat(operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/both/x").jsonPath()
                .getList("rules.remaining", Long.class)).as("dear, then cheap (the set's order)")
                .containsExactly(2L, 98L);
    }

    private Response get(String path) {
        return given().header("X-API-Key", apiKey).get(path);
    }
}
