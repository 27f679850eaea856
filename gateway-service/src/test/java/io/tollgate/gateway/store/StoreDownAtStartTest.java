package io.tollgate.gateway.store;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;

/**
 * Redis is down when the gateway starts: the store warm-up gives up at once, the gateway is still ready
 * (readiness must not wait on the store: the failure modes answer for it), and each rule's failure mode
 * decides.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "redis", value = "absent"))
class StoreDownAtStartTest {

    @Test
    void readyAndDecidedByFailureMode() {
        install("[" + rule("down.open", "/down-open/**", "api_key", 1, "1m", 1, "\"failure_mode\":\"open\"") + ","
                + rule("down.closed", "/down-closed/**", "api_key", 1, "1m", 1, "\"failure_mode\":\"closed\"") + "]");
        management().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'warmup' }.status", is("UP"));
        resetBackend();

        for (int i = 0; i < 3; i++) {
            given().header("X-API-Key", "a").get("/down-open/x").then().statusCode(200);
            given().header("X-API-Key", "a").get("/down-closed/x").then().statusCode(503)
                    .contentType("application/problem+json").body("type", is("store-unavailable"));
        }
        assertThat(backendHits()).as("only the open rule's requests reached the backend").isEqualTo(3);
    }
}
