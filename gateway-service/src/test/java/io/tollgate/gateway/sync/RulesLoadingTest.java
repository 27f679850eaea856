package io.tollgate.gateway.sync;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.appliedVersion;
import static io.tollgate.gateway.support.GatewayControl.awaitVersion;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.managementPort;
import static io.tollgate.gateway.support.GatewayControl.nextVersion;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static io.tollgate.gateway.support.GatewayControl.serve;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

/**
 * Rules from a real HTTP rules server: applied at once from the watch stream (the poll interval is an
 * hour here, so nothing else could apply them), invalid sets refused, the snapshot written.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "store", value = "memory"),
        @ResourceArg(name = "poll-interval", value = "1h")})
class RulesLoadingTest {

    @Test
    void watchEventsApplyNewVersionsAtOnceAndTheSnapshotFollows() throws Exception {
        long version = install("[" + rule("watch.one", "/watched/**", "api_key", 1, "1m", 1, "") + "]");
        given().header("X-API-Key", "w").get("/watched/a").then().statusCode(200);
        given().header("X-API-Key", "w").get("/watched/a").then().statusCode(429);
        Path snapshot = Path.of(config("tollgate.rules.snapshot"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(snapshot)
                && Files.readString(snapshot).contains("\"version\":" + version));
        assertThat(Files.readString(snapshot)).contains("watch.one");
        // beside it, the live-gateway count the rules service last gave
        Path gateways = snapshot.resolveSibling(snapshot.getFileName() + ".gateways");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(gateways));
        assertThat(Files.readString(gateways)).matches("[1-9][0-9]*");
        // and the client directory (empty here) as of the service's last change
        Path directory = snapshot.resolveSibling(snapshot.getFileName() + ".directory");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(directory));
        try (var siblings = Files.list(snapshot.getParent())) {
            assertThat(siblings).as("no temp file left behind").containsExactlyInAnyOrder(snapshot, gateways,
                    directory);
        }
    }

    @Test
    void anInvalidSetIsRefusedAndTheLastGoodOneKept() {
        long good = install("[" + rule("kept.one", "/kept/**", "api_key", 1, "1m", 1, "") + "]");
        long bad = nextVersion();
        double refusedBefore = refusedSets();
        serve("{\"version\":" + bad + ",\"rules\":[{\"id\":\"Bad Id\",\"limit\":0,\"key\":\"api_key\","
                + "\"period\":\"1s\"}]}", bad);
        // the bad version may be refused more than once (from the watch event and from a fetch): at least once
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> refusedSets() > refusedBefore);
        assertThat(appliedVersion()).isEqualTo(good);
        given().header("X-API-Key", "k").get("/kept/a").then().statusCode(200);
        given().header("X-API-Key", "k").get("/kept/a").then().statusCode(429);
        // the next good version is taken again
        install("[]");
        given().header("X-API-Key", "k").get("/kept/a").then().statusCode(200);
    }

    @Test
    void aSetCutShortIsReadAgainWhenItsVersionComesWhole() {
        long version = nextVersion();
        double refusedBefore = refusedSets();
        serve("", version); // an empty body under the version's ETag, as a body lost on its way would be
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> refusedSets() > refusedBefore);
        // the same ETag with the whole body: applied at the next poll, not skipped as the set refused
        serve("{\"version\":" + version + ",\"rules\":[]}", version);
        awaitVersion(version);
    }

    @Test
    void pollsSayWhoIsAskingAndHearHowManyGatewaysLive() {
        RestAssured.given().baseUri(config("tollgate.rules.url")).put("/__gateways?count=3").then().statusCode(200);
        long version = install("[]");
        awaitVersion(version);
        JsonPath seen = RestAssured.given().baseUri(config("tollgate.rules.url")).get("/__seen").jsonPath();
        assertThat(seen.getString("gateway")).isEqualTo("gw-test");
        assertThat(management().get("/q/health/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void pollsSayWhereTheManagementInterfaceListensWithTheRulesToken() {
        long version = install("[]");
        awaitVersion(version);
        JsonPath seen = RestAssured.given().baseUri(config("tollgate.rules.url")).get("/__seen").jsonPath();
        // the port it listens on, not the configured 0 of a test; the host is quarkus.management.host's
        assertThat(seen.getString("admin")).matches("http://(localhost|127\\.0\\.0\\.1):" + managementPort());
        // the gateway polls with tollgate.rules.token, not its admin token, and got the rules it waited for
        assertThat(seen.getString("authorization")).isEqualTo(GatewayControl.RULES);
        // the rules service reaches the operations with that token: it reads, and writes nothing
        RestAssured.given().baseUri(seen.getString("admin")).header("Authorization", seen.getString("authorization"))
                .get("/tollgate/top?rule=no.such.rule").then().statusCode(404);
        RestAssured.given().baseUri(seen.getString("admin")).header("Authorization", seen.getString("authorization"))
                .header("X-API-Key", "k").delete("/tollgate/buckets?rule=no.such.rule").then().statusCode(403);
    }

    private static double refusedSets() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^tollgate_rules_refused_total ([0-9.E]+)$")
                .matcher(management().get("/q/metrics").asString());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
