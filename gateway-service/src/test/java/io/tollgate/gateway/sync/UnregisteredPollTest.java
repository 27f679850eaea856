package io.tollgate.gateway.sync;

import static io.tollgate.gateway.support.GatewayControl.awaitVersion;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.GatewayResource;

/**
 * A gateway with {@code tollgate.rules.register=false} (a training run, the demo's gateways) reads the rules like
 * any other but never announces itself, so the rules service does not count it as a gateway of the fleet.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "store", value = "memory"),
        @ResourceArg(name = "register", value = "false")})
class UnregisteredPollTest {

    @Test
    void pollsTheRulesWithoutSayingWhoIsAsking() {
        long version = install("[]");
        awaitVersion(version);
        JsonPath seen = RestAssured.given().baseUri(config("tollgate.rules.url")).get("/__seen").jsonPath();
        assertThat(seen.getLong("polls")).isPositive();
        assertThat(seen.getString("gateway")).isEmpty();
        assertThat(seen.getString("admin")).isEqualTo("null");
    }
}
