package io.tollgate.gateway;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class HealthTest {

    @Test
    void liveAndReady() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        given().when().get("/q/health/ready").then().statusCode(200).body("status", is("UP"));
    }
}
