package io.tollgate.gateway.warmup;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.management;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.warmup.WarmupTest.REACHED;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.GatewayResource;

/**
 * Readiness waits for the warm-up, and no longer than {@code tollgate.warmup.max-time}: a warm-up of more
 * requests than the bound lets through keeps the gateway out of readiness while its rules are in force (from
 * the snapshot, at once: the rules service is down), and the gateway is ready once the bound has passed; the
 * requests in flight then drain to the loopback target. The bound leaves a loaded machine seconds to start the
 * test.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "warmup.requests", value = "100000000"),
        @ResourceArg(name = "warmup.max-time", value = "8s"),
        @ResourceArg(name = "snapshot", value = "{\"version\":3,\"rules\":[]}")})
class WarmupBoundTest {

    @Test
    void readinessWaitsForTheWarmupUntilItsBound() {
        JsonPath early = Awaitility.await("rules in force")
                .atMost(Duration.ofSeconds(6))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> management().get("/q/health/ready").jsonPath(),
                        health -> "UP".equals(health.get("checks.find { it.name == 'rules' }.status")));
        assertThat(early.getString("status")).as("readiness while warming up").isEqualTo("DOWN");
        assertThat(early.getString("checks.find { it.name == 'warmup' }.status")).isEqualTo("DOWN");

        Awaitility.await("ready once the bound has passed")
                .atMost(Duration.ofSeconds(12))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> management().get("/q/health/ready").statusCode() == 200);
        JsonPath warmup = management().get("/q/health/ready").jsonPath().setRootPath("checks.find { it.name == 'warmup' }");
        assertThat(warmup.getLong("data.requests")).as("warm-up requests answered, cut by the bound")
                .isPositive()
                .isLessThan(100_000_000L);

        // the requests in flight at the bound drain to the loopback target; then the warm-up sends nothing more
        AtomicReference<Double> before = new AtomicReference<>(-1.0);
        Awaitility.await("the warm-up stops sending")
                .atMost(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> before.getAndSet(metric(REACHED)).equals(before.get()));
        assertThat(backendHits()).as("backend hits").isZero();
    }
}
