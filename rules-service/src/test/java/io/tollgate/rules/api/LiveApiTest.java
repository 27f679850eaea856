package io.tollgate.rules.api;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.version;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.tollgate.rules.Api;
import io.tollgate.rules.TestDatabase;

/**
 * The live view's API: every call needs the admin token; a gateway registers only by a poll with a valid
 * token, and its management address is taken only when its host is the poll's source; the version a poll was answered is the
 * version the gateway holds; explain
 * with no gateway that answers is a 503 problem. Against real gateways: e2e's OperationsApiTest.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class LiveApiTest {

    private static final String[] CALLS = {"/api/v1/gateways", "/api/v1/live", "/api/v1/top?rule=r",
            "/api/v1/explain?path=/x"};

    @Test
    void everyCallNeedsTheAdminToken() {
        for (String call : CALLS) {
            given().get(call).then().statusCode(401).contentType("application/problem+json")
                    .header("WWW-Authenticate", "Bearer realm=\"tollgate\"");
            given().header("Authorization", "Bearer not-a-token").get(call).then().statusCode(403)
                    .contentType("application/problem+json").body("type", is("forbidden"));
        }
    }

    @Test
    void aPollWithTheAdminTokenRegistersItsAddressAndTheVersionItWasAnswered() throws IOException {
        String id = id("gw-trusted");
        String address = "http://127.0.0.1:" + closedPort();
        long current = version();
        given().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", address + "/")
                .header("Authorization", ADMIN).get("/api/v1/rules").then().statusCode(200);

        await().untilAsserted(() -> gateway(id).body("admin_url", is(address))
                .body("rules_version", is((int) current)).body("live", is(true)).body("last_seen", notNullValue()));
        // a later poll answered 304 holds the same version; without the address header the address stays
        given().header("Authorization", Api.GATEWAY).header("Tollgate-Gateway", id)
                .header("If-None-Match", "\"" + current + "\"").get("/api/v1/rules")
                .then().statusCode(304);
        gateway(id).body("admin_url", is(address)).body("rules_version", is((int) current));
    }

    @Test
    void aGatewayHeaderCountsOnlyOnAPollWithAGatewayOrAdminToken() {
        String id = id("gw-untrusted");
        given().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", "http://127.0.0.1:9000")
                .header("Authorization", "Bearer guessed").get("/api/v1/rules").then().statusCode(403);
        given().header("Tollgate-Gateway", id).get("/api/v1/rules").then().statusCode(401);
        // a read token is answered, yet counts for nothing: only gateways and admins register
        reading().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", "http://127.0.0.1:9000")
                .get("/api/v1/rules").then().statusCode(200);
        // a valid token on a call that is no poll: no registration either
        given().header("Tollgate-Gateway", id).header("Authorization", ADMIN).get("/api/v1/rules/missing").then()
                .statusCode(404);
        given().header("Tollgate-Gateway", id).header("Authorization", ADMIN).get("/api/v1/gateways").then()
                .statusCode(200);
        // a poll that does register, after all of those: once it is listed, none of them was
        String witness = id("gw-witness");
        given().header("Tollgate-Gateway", witness).header("Authorization", Api.GATEWAY).get("/api/v1/directory")
                .then().statusCode(200);
        await().untilAsserted(() -> as(ADMIN).get("/api/v1/gateways").then().body("gateways.id", hasItem(witness)));
        as(ADMIN).get("/api/v1/gateways").then().body("gateways.id", not(hasItem(id)));
    }

    @Test
    void aReportedAddressIsTakenOnlyWhenItsHostIsThePollsSource() {
        String id = id("gw-elsewhere");
        given().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", "http://10.9.9.9:9000")
                .header("Authorization", ADMIN).get("/api/v1/rules").then().statusCode(200);
        await().untilAsserted(() -> gateway(id).body("live", is(true)));
        gateway(id).body("admin_url", nullValue());
        // an address that is not an http(s) URL is not taken either
        given().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", "file:///etc/passwd")
                .header("Authorization", ADMIN).get("/api/v1/rules").then().statusCode(200);
        gateway(id).body("admin_url", nullValue());
    }

    @Test
    void theLiveViewListsLiveGatewaysAndItsStep() throws IOException {
        String id = id("gw-live");
        given().header("Tollgate-Gateway", id).header("Tollgate-Gateway-Admin", "http://127.0.0.1:" + closedPort())
                .header("Authorization", ADMIN).get("/api/v1/rules").then().statusCode(200);
        await().untilAsserted(() -> as(ADMIN).get("/api/v1/live").then().statusCode(200)
                .body("step_ms", is(10000))
                .body("gateways.id", hasItem(id))
                .body("rules", notNullValue()));
    }

    @Test
    void topNamesAMissingRuleOrABadCount() {
        as(ADMIN).get("/api/v1/top").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", is("rule"));
        as(ADMIN).get("/api/v1/top?rule=r&n=0").then().statusCode(400).body("errors[0].field", is("n"));
        as(ADMIN).get("/api/v1/top?rule=r&n=20").then().statusCode(200).body("rule", is("r"))
                .body("clients", everyItem(notNullValue()));
    }

    @Test
    void explainWithNoGatewayAnsweringIs503() throws IOException {
        // the only gateways known here have addresses where nothing listens
        String gone = id("gw-gone");
        given().header("Tollgate-Gateway", gone).header("Tollgate-Gateway-Admin",
                "http://127.0.0.1:" + closedPort()).header("Authorization", ADMIN).get("/api/v1/rules");
        await().untilAsserted(() -> gateway(gone).body("live", is(true)));
        as(ADMIN).header("X-API-Key", "k").get("/api/v1/explain?method=GET&path=/orders/1").then().statusCode(503)
                .contentType("application/problem+json").body("type", is("no-gateway"));
    }

    private static ValidatableResponse gateway(String id) {
        return as(ADMIN).get("/api/v1/gateways").then().statusCode(200).rootPath("gateways.find { it.id == '" + id
                + "' }");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
