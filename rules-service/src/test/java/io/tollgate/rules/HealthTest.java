package io.tollgate.rules;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.management;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Health (with the database check), Prometheus metrics, OpenAPI and Swagger UI: on the management interface,
 * none of them on the API's port.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class HealthTest {

    @Test
    void liveAndReadyWithDatabaseCheck() {
        management().when().get("/q/health/live").then().statusCode(200).body("status", is("UP"));
        management().when()
                .get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("status", is("UP"))
                .body("checks.name", hasItem(containsString("PostgreSQL")));
    }

    @Test
    void prometheusMetrics() {
        given().header("Authorization", Api.GATEWAY).header("Tollgate-Gateway", "metrics-gw").get("/api/v1/rules").then()
                .statusCode(200);
        management().when()
                .get("/q/metrics")
                .then()
                .statusCode(200)
                .body(containsString("tollgate_rules_gateways_live"))
                .body(containsString("tollgate_rules_watchers"))
                .body(containsString("http_server_requests_seconds"));
    }

    @Test
    void openApiAndSwaggerUi() {
        management().when()
                .get("/q/openapi?format=json")
                .then()
                .statusCode(200)
                .body(containsString("/api/v1/rules/{id}/history"))
                .body(containsString("/api/v1/rules/watch"))
                // a client by its key in X-API-Key or by digest; the refused key-in-the-path form is not offered
                .body(containsString("\"/api/v1/clients/key\""))
                .body(containsString("/api/v1/clients/digest/{digest}/history"))
                .body(org.hamcrest.Matchers.not(containsString("/api/v1/clients/{key}")));
        management().when().get("/q/swagger-ui/").then().statusCode(200);
    }

    @Test
    void noneOfThemOnTheApiPort() {
        for (String path : new String[]{"/q/health/ready", "/q/metrics", "/q/openapi", "/q/swagger-ui/"}) {
            given().when().get(path).then().statusCode(404);
        }
    }
}
