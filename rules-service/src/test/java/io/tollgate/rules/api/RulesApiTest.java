package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.ALICE;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.polling;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.tollgate.rules.TestDatabase;

/** Every endpoint of the rules API and each status code it names, over real HTTP and PostgreSQL. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
public class RulesApiTest {

    @Test
    void listHasVersionAsETagAnd304WhenUnchanged() {
        Response r = reading().get("/api/v1/rules");
        r.then().statusCode(200).contentType("application/json").body("version", notNullValue());
        long version = r.jsonPath().getLong("version");
        assertThat(r.header("ETag")).isEqualTo("\"" + version + "\"");

        reading().header("If-None-Match", "\"" + version + "\"")
                .get("/api/v1/rules")
                .then()
                .statusCode(304)
                .header("ETag", "\"" + version + "\"")
                .header("Tollgate-Gateways", notNullValue());
        reading().header("If-None-Match", "\"" + (version + 1000) + "\"").get("/api/v1/rules").then().statusCode(200);
    }

    @Test
    void createAnswers201WithLocationThen409() {
        String id = id("create");
        long before = version();

        as(ADMIN).body(rule(id, 5))
                .post("/api/v1/rules")
                .then()
                .statusCode(201)
                .header("Location", endsWith("/api/v1/rules/" + id))
                .header("ETag", "\"" + (before + 1) + "\"")
                .body("id", is(id))
                .body("burst", is(10))
                .body("failure_mode", is("local"));

        as(ADMIN).body(rule(id, 6))
                .post("/api/v1/rules")
                .then()
                .statusCode(409)
                .contentType("application/problem+json")
                .body("status", is(409));
        assertThat(version()).as("a rejected write does not move the version").isEqualTo(before + 1);
        reading().get("/api/v1/rules/" + id).then().body("limit", is(5));
    }

    @Test
    void aSettleWithOtherwiseIsStoredAndReturnedAsWritten() {
        String id = id("settle");
        String rule = """
                {"id": "%s", "key": "api_key", "limit": 100000, "period": "1m", "cost": 500, "unit": "tokens",
                 "settle": {"from": "json:/usage/total_tokens", "otherwise": 8192}}""".formatted(id);

        as(ADMIN).body(rule).post("/api/v1/rules").then().statusCode(201)
                .body("settle.from", is("json:/usage/total_tokens"))
                .body("settle.otherwise", is(8192));
        reading().get("/api/v1/rules/" + id).then().statusCode(200)
                .body("settle.otherwise", is(8192));
        as(ADMIN).body(rule.replace("8192", "-5")).put("/api/v1/rules/" + id).then().statusCode(400)
                .body("errors.field", contains("settle.otherwise"))
                .body("errors[0].value", is("-5"));
    }

    @Test
    void getOneWithETagOr404() {
        String id = id("get");
        String etag = as(ADMIN).body(rule(id, 3)).post("/api/v1/rules").header("ETag");

        reading().get("/api/v1/rules/" + id).then().statusCode(200).header("ETag", etag).body("limit", is(3));
        reading().header("If-None-Match", etag).get("/api/v1/rules/" + id).then().statusCode(304);
        reading().get("/api/v1/rules/no-such-rule")
                .then()
                .statusCode(404)
                .contentType("application/problem+json")
                .body("type", is("not-found"))
                .body("status", is(404));
    }

    @Test
    void putCreates201ThenReplaces200AndHonoursIfMatch() {
        String id = id("put");
        String created = as(ADMIN).body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(201)
                .extract().header("ETag");

        String replaced = as(ADMIN).header("If-Match", created)
                .body(rule(id, 2))
                .put("/api/v1/rules/" + id)
                .then()
                .statusCode(200)
                .body("limit", is(2))
                .extract()
                .header("ETag");
        assertThat(replaced).isNotEqualTo(created);

        long before = version();
        as(ADMIN).header("If-Match", created)
                .body(rule(id, 3))
                .put("/api/v1/rules/" + id)
                .then()
                .statusCode(412)
                .contentType("application/problem+json");
        String absent = id("absent");
        as(ADMIN).header("If-Match", "*").body(rule(absent, 3)).put("/api/v1/rules/" + absent)
                .then().statusCode(412);
        assertThat(version()).isEqualTo(before);
        reading().get("/api/v1/rules/" + id).then().body("limit", is(2));
    }

    @Test
    void putOfAnEqualRuleIsNoChange() {
        String id = id("same");
        String etag = as(ADMIN).body(rule(id, 4)).put("/api/v1/rules/" + id).header("ETag");
        long before = version();

        as(ADMIN).body(rule(id, 4)).put("/api/v1/rules/" + id).then().statusCode(200).header("ETag", etag);
        assertThat(version()).isEqualTo(before);
    }

    @Test
    void putWithAnotherIdInTheBodyIs400() {
        as(ADMIN).body(rule("other-id", 4))
                .put("/api/v1/rules/" + id("path"))
                .then()
                .statusCode(400)
                .body("errors[0].field", is("id"))
                .body("errors[0].value", is("other-id"));
    }

    @Test
    void deleteAnswers204Then404() {
        String id = id("delete");
        as(ADMIN).body(rule(id, 1)).post("/api/v1/rules").then().statusCode(201);

        as(ADMIN).delete("/api/v1/rules/" + id).then().statusCode(204);
        reading().get("/api/v1/rules/" + id).then().statusCode(404);
        as(ADMIN).delete("/api/v1/rules/" + id).then().statusCode(404).contentType("application/problem+json");
    }

    @Test
    void historyListsEveryRevisionInOrder() {
        String id = id("history");
        as(ADMIN).body(rule(id, 1)).post("/api/v1/rules");
        as(ADMIN).body(rule(id, 2)).put("/api/v1/rules/" + id);
        as(ADMIN).delete("/api/v1/rules/" + id);

        Response h = reading().get("/api/v1/rules/" + id + "/history");
        h.then().statusCode(200).body("id", is(id)).body("revisions.operation",
                equalTo(java.util.List.of("create", "replace", "delete")));
        assertThat(h.jsonPath().getList("revisions.version", Long.class)).isSorted().doesNotHaveDuplicates();
        assertThat(h.jsonPath().getList("revisions.actor", String.class)).containsOnly("admin");
        assertThat(h.jsonPath().getList("revisions.rule.limit", Integer.class)).containsExactly(1, 2, 2);
        assertThat(h.jsonPath().getString("revisions[0].at")).isNotBlank();
        reading().get("/api/v1/rules/never-existed/history").then().statusCode(404);
    }

    @Test
    void bodiesAbove64KiBAre413() {
        String big = rule(id("big"), 1).replace("\"id\"", "\"description\": \"" + "x".repeat(70_000) + "\", \"id\"");
        long before = version();

        as(ADMIN).body(big)
                .post("/api/v1/rules")
                .then()
                .statusCode(413)
                .contentType("application/problem+json")
                .body("type", is("payload-too-large"));
        assertThat(version()).isEqualTo(before);
    }

    @Test
    void chunkedAndVeryLargeBodiesAre413Too() throws Exception {
        byte[] big = ("{\"description\": \"" + "x".repeat(70_000) + "\"}").getBytes(UTF_8);
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest chunked = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/api/v1/rules"))
                .header("Authorization", ADMIN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big)))
                .build();
        HttpResponse<String> r = client.send(chunked, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");

        as(ADMIN).body("x".repeat(2_000_000)).post("/api/v1/rules").then().statusCode(413)
                .contentType("application/problem+json");
    }

    @Test
    void acceptsYaml() {
        String id = id("yaml");
        given().header("Authorization", ADMIN)
                .contentType("application/yaml")
                .body(("id: " + id + "\nkey: header:X-Tenant\nlimit: 7\nperiod: 1m\n").getBytes(UTF_8))
                .post("/api/v1/rules")
                .then()
                .statusCode(201)
                .body("key", is("header:X-Tenant"))
                .body("period", is("1m"))
                .body("match.path", is("/**"));
    }

    @Test
    void everyAnswerCountsLiveGateways() {
        polling().header("Tollgate-Gateway", "gw-a").get("/api/v1/rules").then().statusCode(200);
        polling().header("Tollgate-Gateway", "gw-b").get("/api/v1/rules").then().statusCode(200);
        // the registry is written after the answer and its count read at most once a second
        await().untilAsserted(() -> assertThat(Integer.parseInt(polling().get("/api/v1/rules")
                .header("Tollgate-Gateways"))).isGreaterThanOrEqualTo(2));

        reading().get("/api/v1/rules/missing").then().statusCode(404).header("Tollgate-Gateways", notNullValue());
        as(ALICE).body("{}").post("/api/v1/rules").then().statusCode(400).header("Tollgate-Gateways", notNullValue());
        // a caller the guard refuses learns nothing of the fleet
        as("Bearer wrong").body("{}").post("/api/v1/rules").then().statusCode(403)
                .header("Tollgate-Gateways", nullValue());
    }

    @Test
    void unknownPathsAnswerProblemJson() {
        reading().get("/api/v1/nothing-here").then().statusCode(404).contentType("application/problem+json");
        reading().get("/api/v1/rules").then().body("rules.id", org.hamcrest.Matchers.not(hasItem("watch")));
    }
}
