package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.READ;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.tollgate.rules.TestDatabase;

/**
 * Two processes of the packaged service on one database, A (the app under test) and B, act as one: a console
 * session made on A works on B and ends on both; gateways polling A and B are counted alike on both; a gateway
 * header without a valid token counts nothing on either; a reported address elsewhere than the poll's source
 * is used by neither.
 */
@QuarkusIntegrationTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class SharedStateIT {

    private static final String COOKIE = "tollgate_session";
    private static final Pattern CSRF = Pattern.compile("<meta name=\"csrf-token\" content=\"([^\"]+)\"");

    private static PackagedInstance b;

    @BeforeAll
    static void startB() throws Exception {
        b = new PackagedInstance("shared-state-b.log");
    }

    @AfterAll
    static void stopB() throws Exception {
        b.close();
    }

    @Test
    void aConsoleSessionMadeOnAWorksOnBAndEndsOnBoth() {
        String session = given().redirects().follow(false).contentType(ContentType.URLENC)
                .formParam("token", "test-admin-token").post("/console/login").then().statusCode(303)
                .extract().cookie(COOKIE);

        String page = onB().cookie(COOKIE, session).get("/console/rules").then().statusCode(200).extract().asString();
        Matcher csrf = CSRF.matcher(page);
        assertThat(csrf.find()).as("B's page carries the session's CSRF token").isTrue();
        onB().cookie(COOKIE, session).get("/api/v1/gateways").then().statusCode(200);
        onB().cookie(COOKIE, session).header("X-CSRF-Token", csrf.group(1)).contentType(ContentType.JSON)
                .body(rule(id("written-on-b"), 1)).post("/api/v1/rules").then().statusCode(201);

        onB().cookie(COOKIE, session).header("X-CSRF-Token", csrf.group(1)).post("/console/logout").then()
                .statusCode(303);
        given().redirects().follow(false).cookie(COOKIE, session).get("/console/rules").then().statusCode(303);
        given().cookie(COOKIE, session).get("/api/v1/gateways").then().statusCode(401);
    }

    @Test
    void gatewaysPollingEitherAreCountedAlikeOnBothAndFakesCountNothing() {
        String onA = id("gw-a");
        String onBoth = id("gw-b");
        poll(given(), onA, "http://10.255.0.1:9000"); // an address elsewhere than where the poll came from
        poll(onB(), onBoth, "http://127.0.0.1:" + b.port); // its own address: the source of the poll
        for (int i = 0; i < 50; i++) {
            given().header("Tollgate-Gateway", "fake-" + i).get("/api/v1/rules").then().statusCode(401);
            onB().header("Tollgate-Gateway", "fake-b-" + i).header("Authorization", "Bearer guessed")
                    .get("/api/v1/rules").then().statusCode(403);
            // a read token is answered, yet registers nothing
            onB().header("Tollgate-Gateway", "fake-r-" + i).header("Authorization", READ)
                    .get("/api/v1/rules").then().statusCode(200);
        }

        await().untilAsserted(() -> {
            List<String> liveOnA = live(given());
            List<String> liveOnB = live(onB());
            assertThat(liveOnA).contains(onA, onBoth).isEqualTo(liveOnB).noneMatch(g -> g.startsWith("fake"));
            assertThat(count(given())).isEqualTo(liveOnA.size());
            assertThat(count(onB())).isEqualTo(liveOnA.size());
        });
        for (RequestSpecification instance : List.of(given(), onB())) {
            Map<String, String> urls = instance.header("Authorization", ADMIN).get("/api/v1/gateways").then()
                    .statusCode(200).extract().jsonPath().getMap("gateways.collectEntries { [it.id, it.admin_url] }");
            assertThat(urls).containsEntry(onA, null).containsEntry(onBoth, "http://127.0.0.1:" + b.port);
        }
    }

    private RequestSpecification onB() {
        return given().baseUri("http://127.0.0.1").port(b.port).redirects().follow(false);
    }

    private static void poll(RequestSpecification instance, String id, String adminUrl) {
        instance.header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", adminUrl)
                .header("Authorization", ADMIN).get("/api/v1/rules").then().statusCode(200);
    }

    private static List<String> live(RequestSpecification instance) {
        return instance.header("Authorization", ADMIN).get("/api/v1/gateways").then().statusCode(200)
                .extract().jsonPath().getList("gateways.findAll { it.live }.id", String.class);
    }

    private static int count(RequestSpecification instance) {
        return Integer.parseInt(instance.header("Authorization", READ).get("/api/v1/rules").then().statusCode(200).extract()
                .header("Tollgate-Gateways"));
    }
}
