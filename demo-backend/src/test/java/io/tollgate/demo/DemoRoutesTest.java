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

    @Test
    void llmAnswersSayWhatTheyUsedAsJsonOrAsTheLastEventOfAStream() {
        given().post("/llm/v1/chat/completions?tokens=120").then().statusCode(200)
                .body("usage.total_tokens", equalTo(120));
        String stream = given().post("/llm/v1/chat/completions?tokens=7&stream=true").then().statusCode(200)
                .contentType("text/event-stream").extract().asString();
        org.assertj.core.api.Assertions.assertThat(stream).contains("\"total_tokens\":7").endsWith("data: [DONE]\n\n");
    }

    @Test
    void aHeldAnswerComesWhenReleased() throws Exception {
        var answer = java.util.concurrent.CompletableFuture.supplyAsync(() -> given().get("/hold/report").statusCode());
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> given().get("/__held").jsonPath().getInt("held") == 1);
        given().post("/__release").then().statusCode(200).body("released", equalTo(1));
        org.assertj.core.api.Assertions.assertThat(answer.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(200);
    }
}
