package io.tollgate.gateway.sync;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.management;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

/** The rules service is down when the gateway starts: it becomes ready from its snapshot and enforces it. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "store", value = "memory"),
        @ResourceArg(name = "snapshot", value = "{\"version\":7,\"rules\":[{\"id\":\"snap.one\",\"match\":"
                + "{\"path\":\"/snap/**\"},\"key\":\"api_key\",\"limit\":1,\"period\":\"1m\",\"burst\":1}]}")})
class RulesDownAtStartTest {

    @Test
    void readyFromTheSnapshotAndEnforcingIt() {
        GatewayControl.awaitVersion(7);
        management().get("/q/health/ready").then().statusCode(200).body("status", is("UP"));
        given().header("X-API-Key", "s").get("/snap/1").then().statusCode(200).header("RateLimit-Remaining", "0");
        given().header("X-API-Key", "s").get("/snap/1").then().statusCode(429).header("Retry-After", "60");
    }
}
