package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.TestDatabase;

/**
 * Rules with plans: POST, PUT and the declarative import store and answer them, the history carries them, and a
 * bad plan is refused naming each of its fields (400 validation-failed, as every bad rule field).
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class RulePlansTest {

    @Test
    void plansAreStoredAndAnsweredByPostPutAndHistory() {
        String id = id("plans");
        as(ADMIN).body("""
                {"id": "%s", "key": "api_key", "limit": 10, "period": "1m",
                 "plans": {"free": {"limit": 2}, "pro": {"limit": 100, "burst": 200}, "blocked": {"limit": 0}}}"""
                .formatted(id)).post("/api/v1/rules").then().statusCode(201)
                .body("plans.free.limit", is(2))
                .body("plans.pro.burst", is(200))
                .body("plans.blocked.limit", is(0));
        reading().get("/api/v1/rules/" + id).then().statusCode(200)
                .body("plans.pro.limit", is(100))
                .body("plans.free.burst", nullValue());

        as(ADMIN).body("""
                {"id": "%s", "key": "api_key", "limit": 10, "period": "1m",
                 "plans": {"free": {"limit": 3, "period": "1h"}}}""".formatted(id))
                .put("/api/v1/rules/" + id).then().statusCode(200)
                .body("plans.free.period", is("1h"))
                .body("plans.pro", nullValue());
        reading().get("/api/v1/rules/" + id + "/history").then().statusCode(200)
                .body("revisions[0].rule.plans.pro.limit", is(100))
                .body("revisions[1].rule.plans.free.limit", is(3));
    }

    @Test
    void theDeclarativeImportCarriesPlans() {
        String yaml = """
                rules:
                  - id: plans.imported
                    key: tenant
                    limit: 1000
                    period: 1m
                    plans:
                      enterprise: {limit: 5000, burst: 6000}
                """;
        given().header("Authorization", ADMIN).contentType("application/yaml")
                .body(yaml.getBytes(StandardCharsets.UTF_8)).put("/api/v1/rules").then().statusCode(200);
        reading().get("/api/v1/rules").then().statusCode(200)
                .body("rules.find { it.id == 'plans.imported' }.plans.enterprise.limit", is(5000))
                .body("rules.find { it.id == 'plans.imported' }.plans.enterprise.burst", is(6000));
    }

    @Test
    void aBadPlanIsRefusedNamingEachField() {
        long before = version();
        as(ADMIN).body("""
                {"id": "%s", "key": "api_key", "limit": 10, "period": "1m",
                 "plans": {"Bad Name": {"limit": 1}, "neg": {"limit": -1, "burst": 0},
                           "odd": {"limit": "x", "rate": 1}, "slow": {"period": "soon"}}}""".formatted(id("bad")))
                .post("/api/v1/rules").then().statusCode(400)
                .contentType("application/problem+json")
                .body("type", is("validation-failed"))
                .body("errors.field", hasItems("plans.Bad Name", "plans.neg.limit", "plans.neg.burst",
                        "plans.odd.limit", "plans.odd.rate", "plans.slow.period"));
        assertThat(version()).as("a refused rule changes nothing").isEqualTo(before);
    }
}
