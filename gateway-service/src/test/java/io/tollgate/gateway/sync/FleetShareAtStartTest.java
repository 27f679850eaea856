package io.tollgate.gateway.sync;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;

/**
 * The rules service and Redis are both down when the gateway starts: it takes its rules from the snapshot
 * and the live-gateway count kept beside it (3), so the local failure mode admits a third of the limit, as the
 * fleet last shared it, not the whole of it.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "redis", value = "absent"),
        @ResourceArg(name = "snapshot-gateways", value = "3"),
        @ResourceArg(name = "snapshot", value = "{\"version\":9,\"rules\":[{\"id\":\"share.local\",\"match\":"
                + "{\"path\":\"/share/**\"},\"key\":\"api_key\",\"limit\":6,\"period\":\"1h\",\"burst\":6,"
                + "\"failure_mode\":\"local\"}]}")})
class FleetShareAtStartTest {

    @Test
    void theLocalFailureModeSharesTheLimitAsTheFleetLastDid() {
        GatewayControl.awaitVersion(9);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(given().header("X-API-Key", "share").get("/share/1").statusCode());
        }
        assertThat(statuses).as("6 ÷ 3 gateways").containsExactly(200, 200, 429, 429, 429, 429);
    }
}
