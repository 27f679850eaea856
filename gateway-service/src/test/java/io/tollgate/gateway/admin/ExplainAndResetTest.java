package io.tollgate.gateway.admin;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.DirectoryControl;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.tollgate.rules.domain.ClientDigest;

/**
 * {@code GET /tollgate/explain} and {@code DELETE /tollgate/buckets} on the management interface, against real
 * Redis, with the directory served by the test rules service: explain shows each rule's effective policy and
 * bucket without spending, a reset empties exactly the bucket a request counts in.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class ExplainAndResetTest {

    private static final String PLANS = "\"plans\":{\"pro\":{\"limit\":10},\"blocked\":{\"limit\":0}}";

    private String id;
    private String pro;

    @BeforeEach
    void rules() {
        id = UUID.randomUUID().toString().substring(0, 8);
        pro = "pro-" + id;
        install("[" + rule("ex.key", "/ex/**", "api_key", 5, "1h", 5, PLANS) + ","
                + rule("ex.ip", "/ex/**", "ip", 100, "1m", 100, "") + ","
                + rule("ex.other", "/other/**", "api_key", 5, "1h", 5, "") + "]");
        DirectoryControl.apply("{\"clients\":[{\"key\":\"" + pro + "\",\"entry\":{\"plan\":\"pro\"}},"
                + "{\"key\":\"blocked-" + id + "\",\"entry\":{\"plan\":\"blocked\"}}]}");
    }

    @Test
    void explainShowsTheEffectivePolicyAndWhatTheBucketHoldsWithoutSpending() {
        JsonPath fresh = explain(pro, "method=POST&path=/ex/1&ip=10.0.0.7");
        assertThat(fresh.getString("method")).isEqualTo("POST");
        assertThat(fresh.getList("rules.id")).as("the rules that match, in set order").containsExactly("ex.key",
                "ex.ip");
        assertThat(fresh.getString("rules[0].source")).isEqualTo("plan:pro");
        assertThat(fresh.getLong("rules[0].policy.limit")).isEqualTo(10);
        assertThat(fresh.getLong("rules[0].policy.burst")).isEqualTo(10);
        assertThat(fresh.getString("rules[0].policy.period")).isEqualTo("1h");
        assertThat(fresh.getString("rules[0].key")).as("the API key as its digest")
                .isEqualTo("rl:ex.key:{sha256:" + ClientDigest.of(pro) + "}");
        assertThat(fresh.getBoolean("rules[0].stored")).isFalse();
        assertThat(fresh.getLong("rules[0].remaining")).isEqualTo(10);
        assertThat(fresh.getString("rules[1].source")).isEqualTo("rule");
        assertThat(fresh.getString("rules[1].key")).isEqualTo("rl:ex.ip:{10.0.0.7}");

        for (int i = 0; i < 3; i++) {
            given().header("X-API-Key", pro).post("/ex/1").then().statusCode(200);
        }
        for (int i = 0; i < 3; i++) {
            JsonPath spent = explain(pro, "method=POST&path=/ex/1");
            assertThat(spent.getBoolean("rules[0].stored")).isTrue();
            assertThat(spent.getLong("rules[0].remaining")).as("explain %d spends nothing", i).isEqualTo(7);
            assertThat(spent.getLong("rules[0].reset_ms")).isPositive();
        }
        given().header("X-API-Key", pro).post("/ex/1").then().statusCode(200).header("RateLimit-Remaining", "6");
    }

    @Test
    void aMissingKeyAndABlockingPlanAreSaidAsSuch() {
        JsonPath noKey = explain("path=/ex/1");
        assertThat(noKey.getString("rules[0].missing")).as("the header it goes in").isEqualTo("X-API-Key");
        assertThat(noKey.getString("rules[0].missing_key")).isEqualTo("reject");
        assertThat(noKey.getString("rules[1].missing")).isEqualTo("ip");

        JsonPath blocked = explain("blocked-" + id, "path=/ex/1");
        assertThat(blocked.getString("rules[0].source")).isEqualTo("plan:blocked");
        assertThat(blocked.getBoolean("rules[0].blocked")).isTrue();
        assertThat(blocked.getLong("rules[0].remaining")).isZero();

        assertThat(explain("path=/nothing-matches").getList("rules")).isEmpty();
    }

    @Test
    void badParametersAreNamed() {
        operations().get("/tollgate/explain?method=G%20T")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("errors.field", hasItem("method"))
                .body("errors.field", hasItem("path"));
        operations().header("X-API-Key", "x").delete("/tollgate/buckets")
                .then()
                .statusCode(400)
                .body("errors.field", hasItem("rule"));
        operations().delete("/tollgate/buckets?rule=ex.key")
                .then()
                .statusCode(400)
                .body("errors.field", hasItem("X-API-Key"));
        operations().header("X-API-Key", "x").delete("/tollgate/buckets?rule=no.such.rule")
                .then()
                .statusCode(404)
                .body("type", containsString("unknown-rule"));
    }

    @Test
    void aResetEmptiesTheClientsBucketOfThatRuleOnly() {
        String other = "other-" + id;
        for (int i = 0; i < 5; i++) {
            given().header("X-API-Key", other).get("/other/x").then().statusCode(200);
            given().header("X-API-Key", pro).get("/ex/x").then().statusCode(200);
        }
        given().header("X-API-Key", other).get("/other/x").then().statusCode(429);

        operations().header("X-API-Key", other).delete("/tollgate/buckets?rule=ex.other").then().statusCode(204);

        given().header("X-API-Key", other).get("/other/x").then().statusCode(200).header("RateLimit-Remaining", "4");
        assertThat(explain(pro, "path=/ex/x").getLong("rules[0].remaining"))
                .as("the client's bucket of another rule is untouched").isEqualTo(5);
        operations().header("X-API-Key", "never-seen-" + id).delete("/tollgate/buckets?rule=ex.other")
                .then()
                .statusCode(404)
                .body("type", containsString("no-bucket"));
    }

    @Test
    void operationsNeedATokenWhoseScopeCoversThem() {
        management().get("/tollgate/explain?path=/ex/1").then().statusCode(401);
        management().header("X-API-Key", pro).delete("/tollgate/buckets?rule=ex.key").then().statusCode(401);
        management().header("Authorization", "Bearer guessed").get("/tollgate/explain?path=/ex/1").then()
                .statusCode(403).body("type", is("forbidden"));
        // a read token explains and lists the top, and resets nothing
        management().header("Authorization", GatewayControl.READ).header("X-API-Key", pro)
                .get("/tollgate/explain?path=/ex/1").then().statusCode(200).body("rules[0].source", is("plan:pro"));
        management().header("Authorization", GatewayControl.READ).get("/tollgate/top?rule=ex.key").then()
                .statusCode(200);
        management().header("Authorization", GatewayControl.READ).header("X-API-Key", pro)
                .delete("/tollgate/buckets?rule=ex.key").then().statusCode(403).body("type", is("insufficient-scope"));
        // a gateway token polls the rules service; here it calls nothing
        management().header("Authorization", GatewayControl.GATEWAY_SCOPE).get("/tollgate/explain?path=/ex/1").then()
                .statusCode(403).body("type", is("insufficient-scope"));
        management().header("Authorization", "bearer " + "test-admin-token")
                .get("/tollgate/explain?path=/ex/1").then().statusCode(200);
    }

    @Test
    void everyOtherSpellingOfTheHeaderIsRefused() throws java.io.IOException {
        int port = GatewayControl.managementPort();
        for (String value : java.util.List.of("Bearer  " + "test-admin-token", "Basic YTpi", "Bearer",
                "Bearer\t" + "test-admin-token")) {
            RawHttp.Answer answer = RawHttp.exchange("127.0.0.1", port, "GET", "/tollgate/explain?path=/ex/1",
                    java.util.List.of("Authorization: " + value));
            assertThat(answer.status()).as(value).isEqualTo(400);
        }
        RawHttp.Answer two = RawHttp.exchange("127.0.0.1", port, "GET", "/tollgate/explain?path=/ex/1",
                java.util.List.of("Authorization: " + GatewayControl.ADMIN, "Authorization: " + GatewayControl.ADMIN));
        assertThat(two.status()).isEqualTo(400);
    }

    @Test
    void explainAndResetTakeTheKeyFromTheHeaderItIsCountedBy() {
        for (int i = 0; i < 3; i++) {
            given().header("X-API-Key", pro).post("/ex/" + i).then().statusCode(200);
        }
        long spent = operations().header("X-API-Key", pro).get("/tollgate/explain?method=POST&path=/ex/1").then()
                .statusCode(200).extract().jsonPath().getLong("rules[0].remaining");
        assertThat(spent).isEqualTo(7);
        operations().header("X-API-Key", pro).delete("/tollgate/buckets?rule=ex.key").then().statusCode(204);
        assertThat(operations().header("X-API-Key", pro).get("/tollgate/explain?method=POST&path=/ex/1").then()
                .statusCode(200).extract().jsonPath().getLong("rules[0].remaining")).isEqualTo(10);
    }

    @Test
    void aClientKeyInTheUrlIsRefusedSayingWhichHeaderItGoesIn() {
        for (String door : java.util.List.of("GET /tollgate/explain?path=/ex/1&api_key=",
                "DELETE /tollgate/buckets?rule=ex.key&api_key=")) {
            String[] call = door.split(" ");
            String answer = operations().request(call[0], call[1] + pro)
                    .then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", containsString("key-in-url"))
                    .body("errors[0].field", is("api_key"))
                    .body("errors[0].reason", containsString("X-API-Key header"))
                    .extract()
                    .asString();
            assertThat(answer).as("the refusal never repeats the key").doesNotContain(pro);
        }
        operations().get("/tollgate/explain?path=/ex/1&header.X-Tenant=acme")
                .then()
                .statusCode(400)
                .body("type", containsString("key-in-url"))
                .body("errors[0].field", is("header.X-Tenant"))
                .body("errors[0].reason", containsString("X-Tenant header"));
        // the wrong side of the door still meets the door first: no token 401, a read token may not reset
        management().get("/tollgate/explain?path=/ex/1&api_key=" + pro).then().statusCode(401);
        management().header("Authorization", GatewayControl.READ)
                .delete("/tollgate/buckets?rule=ex.key&api_key=" + pro).then().statusCode(403);
    }

    private static JsonPath explain(String query) {
        return explain(null, query);
    }

    /** Explain with {@code apiKey} (unless null) in the header the gateway counts it by. */
    private static JsonPath explain(String apiKey, String query) {
        var request = operations();
        if (apiKey != null) {
            request.header("X-API-Key", apiKey);
        }
        return request.get("/tollgate/explain?" + query)
                .then()
                .statusCode(200)
                .contentType("application/json")
                .extract()
                .jsonPath();
    }
}
