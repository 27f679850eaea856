package io.tollgate.rules.auth;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ALICE;
import static io.tollgate.rules.Api.BOB;
import static io.tollgate.rules.Api.GATEWAY;
import static io.tollgate.rules.Api.READ;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.tollgate.rules.TestDatabase;

/** Every call needs a configured bearer token of a scope that covers it; the token's name is the actor in the history. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class AuthTest {

    @Test
    void withoutTokenEveryWriteIs401AndChangesNothing() {
        String id = id("noauth");
        long before = version();

        given().contentType(ContentType.JSON).body(rule(id, 1)).post("/api/v1/rules").then().statusCode(401)
                .contentType("application/problem+json").header("WWW-Authenticate", "Bearer realm=\"tollgate\"");
        given().contentType(ContentType.JSON).body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(401);
        given().delete("/api/v1/rules/" + id).then().statusCode(401);
        given().header("Authorization", "Basic YTpi").contentType(ContentType.JSON).body("{\"rules\": []}")
                .put("/api/v1/rules").then().statusCode(400).body("type", is("bad-authorization"));
        assertThat(version()).isEqualTo(before);
    }

    @Test
    void wrongTokenIs403AndChangesNothing() {
        String id = id("wrong");
        long before = version();

        as("Bearer test-admin-token-but-longer").body(rule(id, 1)).post("/api/v1/rules").then().statusCode(403)
                .contentType("application/problem+json").body("type", is("forbidden"));
        as("Bearer x").body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(403);
        as("Bearer").body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(400);
        as(READ).body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(403).body("type", is("insufficient-scope"));
        as(GATEWAY).body(rule(id, 1)).put("/api/v1/rules/" + id).then().statusCode(403);
        assertThat(version()).isEqualTo(before);
        reading().get("/api/v1/rules/" + id).then().statusCode(404);
    }

    @Test
    void rightTokensWriteAndTheHistoryNamesTheActor() {
        String id = id("actors");
        as(ALICE).body(rule(id, 1)).post("/api/v1/rules").then().statusCode(201);
        as(BOB).body(rule(id, 2)).put("/api/v1/rules/" + id).then().statusCode(200);

        reading().get("/api/v1/rules/" + id + "/history")
                .then()
                .statusCode(200)
                .body("revisions.actor", is(java.util.List.of("alice", "bob")));
    }

    @Test
    void readsNeedATokenToo() {
        given().get("/api/v1/rules").then().statusCode(401).header("WWW-Authenticate", "Bearer realm=\"tollgate\"");
        reading().get("/api/v1/rules").then().statusCode(200);
    }
}
