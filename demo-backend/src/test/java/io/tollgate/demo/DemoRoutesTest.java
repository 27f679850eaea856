package io.tollgate.demo;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class DemoRoutesTest {

    @BeforeEach
    void forget() {
        given().delete("/__hits").then().statusCode(204);
    }

    @Test
    void echoesAndCountsEveryMethodPerApiKey() {
        given().header("X-API-Key", "ak_42").body("12345").post("/orders/7")
                .then().statusCode(200)
                .body("method", equalTo("POST"))
                .body("path", equalTo("/orders/7"))
                .body("body_bytes", equalTo(5));
        given().header("X-API-Key", "ak_42").delete("/orders/7").then().statusCode(200);
        given().get("/anything").then().statusCode(200);

        given().get("/__hits").then().statusCode(200)
                .body("total", equalTo(3))
                .body("by_api_key.ak_42", equalTo(2))
                .body("by_api_key.'-'", equalTo(1));
    }

    @Test
    void healthIsNotCounted() {
        given().get("/q/health/live").then().statusCode(200);
        given().get("/__hits").then().body("total", equalTo(0));
    }
}
