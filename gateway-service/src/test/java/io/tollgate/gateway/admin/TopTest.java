package io.tollgate.gateway.admin;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.DirectoryControl;
import io.tollgate.gateway.support.Flood;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;

/** {@code GET /tollgate/top} on the management interface, fed by real rejections through HTTP and Redis. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "grpc", value = "true"))
class TopTest {

    @Test
    void aFloodingClientIsNamedByTop() throws Exception {
        install("[" + rule("top.flood", "/top-flood/**", "api_key", 2, "1m", 2, "") + "]");
        String flooder = "flooder-" + UUID.randomUUID();
        Map<Integer, Integer> flood = Flood.statuses("/top-flood/x", 4, c -> flooder, n -> n < 50);
        // 198 when the store answers each in time; a check it answers late is decided by the failure mode, whose
        // 429s count in top as well
        int rejected = flood.getOrDefault(429, 0);
        assertThat(rejected).as("the flooder's rejections").isGreaterThan(150);
        for (int c = 0; c < 30; c++) {
            String noise = "noise-" + c + "-" + UUID.randomUUID();
            for (int i = 0; i < 3; i++) {
                given().header("X-API-Key", noise).get("/top-flood/x");
            }
        }

        JsonPath top = operations().get("/tollgate/top?rule=top.flood&n=3")
                .then()
                .statusCode(200)
                .contentType("application/json")
                .extract()
                .jsonPath();

        assertThat(top.getString("rule")).isEqualTo("top.flood");
        assertThat(top.getList("clients")).hasSize(3);
        assertThat(top.getString("clients[0].digest")).isEqualTo(sha256(flooder));
        assertThat(top.getLong("clients[0].rejected")).as("every 429 it saw").isGreaterThanOrEqualTo(rejected);
        assertThat(top.getString("clients[0].label")).as("a client the directory does not know").isNull();
        assertThat(top.getString("clients[1].digest")).isNotEqualTo(sha256(flooder));
        assertThat(top.getLong("window_ms")).isPositive();
        assertThat(top.prettify()).as("the raw key never appears").doesNotContain(flooder);
    }

    @Test
    void aClientOfTheDirectoryIsNamedByItsLabel() throws Exception {
        install("[" + rule("top.labelled", "/top-labelled/**", "api_key", 1, "1m", 1, "") + "]");
        String known = "known-" + UUID.randomUUID();
        DirectoryControl.apply("{\"clients\":[{\"key\":\"" + known + "\",\"entry\":{\"label\":\"Acme production\"}}]}");
        for (int i = 0; i < 3; i++) {
            given().header("X-API-Key", known).get("/top-labelled/x");
        }

        JsonPath top = operations().get("/tollgate/top?rule=top.labelled").then().statusCode(200).extract().jsonPath();

        assertThat(top.getString("clients[0].digest")).isEqualTo(sha256(known));
        assertThat(top.getString("clients[0].label")).as("asked of the rules service").isEqualTo("Acme production");
    }

    @Test
    void aClientBlockedByItsPlanIsNamedWithEveryRefusal() throws Exception {
        install("[" + rule("top.blocked", "/top-blocked/**", "api_key", 100, "1m", 100,
                "\"plans\":{\"blocked\":{\"limit\":0}}") + "]");
        String blocked = "blocked-" + UUID.randomUUID();
        DirectoryControl.apply("{\"clients\":[{\"key\":\"" + blocked + "\",\"entry\":{\"plan\":\"blocked\"}}]}");
        for (int i = 0; i < 4; i++) {
            given().header("X-API-Key", blocked).get("/top-blocked/x").then().statusCode(429);
        }
        given().header("X-API-Key", "other-" + UUID.randomUUID()).get("/top-blocked/x").then().statusCode(200);

        JsonPath top = operations().get("/tollgate/top?rule=top.blocked").then().statusCode(200).extract().jsonPath();

        assertThat(top.getList("clients")).as("only the blocked client was refused").hasSize(1);
        assertThat(top.getString("clients[0].digest")).isEqualTo(sha256(blocked));
        assertThat(top.getLong("clients[0].rejected")).as("each of its 429s").isEqualTo(4);
    }

    @Test
    void aRuleThatRejectedNobodyHasNoClients() {
        install("[" + rule("top.quiet", "/top-quiet/**", "api_key", 100, "1m", 100, "") + "]");
        operations().get("/tollgate/top?rule=top.quiet").then().statusCode(200).body("clients", is(List.of()));
    }

    @Test
    void operationsNeedTheAdminToken() {
        management().get("/tollgate/top?rule=any")
                .then()
                .statusCode(401)
                .contentType("application/problem+json")
                .header("WWW-Authenticate", "Bearer realm=\"tollgate\"");
        management().header("Authorization", "Bearer not-the-token").get("/tollgate/top?rule=any")
                .then()
                .statusCode(403)
                .contentType("application/problem+json");
    }

    @Test
    void anAddressThatPresentedTenWrongTokensHasThemThrottledAndItsRightTokenServed() throws IOException {
        int port = GatewayControl.managementPort();
        for (int i = 0; i < 10; i++) {
            assertThat(RawHttp.get("127.0.0.2", port, "/tollgate/top?rule=any", "Bearer guess-" + i).status())
                    .as("wrong token %d", i).isEqualTo(403);
        }
        RawHttp.Answer refused = RawHttp.get("127.0.0.2", port, "/tollgate/top?rule=any", "Bearer guess-10");
        assertThat(refused.status()).as("the eleventh wrong token").isEqualTo(429);
        assertThat(refused.header("content-type")).isEqualTo("application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"too-many-wrong-tokens\"");
        assertThat(Long.parseLong(refused.header("retry-after"))).as("one of ten a minute back").isBetween(1L, 6L);
        assertThat(RawHttp.get("127.0.0.2", port, "/tollgate/top?rule=any", GatewayControl.ADMIN).status())
                .as("the right token, from the same address").isNotIn(401, 403, 429);
        assertThat(management().get("/q/metrics").asString()).contains("tollgate_admin_throttled_total 1.0");
    }

    @Test
    void anUnknownRuleIsNotFound() {
        install("[]");
        operations().get("/tollgate/top?rule=no.such.rule")
                .then()
                .statusCode(404)
                .contentType("application/problem+json")
                .body("detail", org.hamcrest.Matchers.containsString("no.such.rule"));
    }

    @Test
    void badParametersAreNamed() {
        install("[" + rule("top.params", "/top-params/**", "api_key", 1, "1m", 1, "") + "]");
        for (String n : new String[]{"0", "-1", "257", "ten", ""}) {
            operations().get("/tollgate/top?rule=top.params&n=" + n)
                    .then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("errors.field", is(List.of("n")))
                    .body("errors[0].value", is(n));
        }
        operations().get("/tollgate/top?n=0")
                .then()
                .statusCode(400)
                .body("errors.field", containsInAnyOrder("rule", "n"));
    }

    static String sha256(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }
}
