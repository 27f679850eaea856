package io.tollgate.gateway;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store", value = "memory"))
class HealthTest {

    @Test
    void liveAndReadyOnceRulesAreLoaded() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        GatewayControl.install("[]");
        given().when().get("/q/health/ready").then().statusCode(200).body("status", is("UP"));
    }
}
