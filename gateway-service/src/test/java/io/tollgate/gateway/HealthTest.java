package io.tollgate.gateway;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.management;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

/** Health and metrics on the management interface; on the public port every path is the backend's. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store", value = "memory"))
class HealthTest {

    @Test
    void liveAndReadyOnceRulesAreLoaded() {
        management().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        GatewayControl.install("[]");
        management().when().get("/q/health/ready").then().statusCode(200).body("status", is("UP"));
    }

    @Test
    void metricsOnTheManagementInterface() {
        management().when().get("/q/metrics").then().statusCode(200).body(containsString("tollgate_rules_version"));
    }

    @Test
    void thePublicPortForwardsManagementPathsToTheBackend() {
        GatewayControl.install("[]");
        for (String path : new String[]{"/q/metrics", "/q/health/ready", "/q/health/live", "/q/openapi", "/q",
                "/tollgate/top?rule=x"}) {
            given().get(path).then().statusCode(200).body("uri", is(path));
        }
    }
}
