package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.DevMode;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.TestDatabase;

/**
 * Dev mode with live reload starts for both services on a fresh clone, against the machine's Redis and
 * PostgreSQL, and serves a changed source: a liveness check added while it runs answers on the next request,
 * and an edit of it too. Each service runs in a copy of the repository, on free ports, and is stopped after.
 */
class DevModeTest {

    /** Maven resolves, compiles and starts the app: on a cold, busy machine that takes a while. */
    private static final Duration START = Duration.ofMinutes(5);
    private static final Duration RELOAD = Duration.ofMinutes(2);

    /** Both services at once, each in a copy of its own: the wait is the slower start, not the sum of both. */
    @Test
    void bothServicesStartInDevModeAndServeAChangedSource() {
        try (TestDatabase database = new TestDatabase();
                DevMode rules = DevMode.launch("rules-service", Map.of(
                        "quarkus.datasource.reactive.url", database.reactiveUrl(),
                        "quarkus.datasource.jdbc.url", database.jdbcUrl(),
                        "quarkus.datasource.username", database.user()));
                // no rules service: the gateway is live without one (ready only once it holds a rule set)
                DevMode gateway = DevMode.launch("gateway-service", Map.of("tollgate.rules.url", "http://127.0.0.1:1"))) {
            rules.awaitLive(START);
            gateway.awaitLive(START);
            assertThat(Http.status(rules.url("/api/v1/rules"))).as("the rules API answers").isIn(200, 401);

            // a check added, then an edit of it; both services reload side by side, as they started (a request
            // to the public port reloads, and waits for the reload)
            for (int edit = 0; edit < 2; edit++) {
                String rulesCheck = writeProbe(rules, "io.tollgate.rules");
                String gatewayCheck = writeProbe(gateway, "io.tollgate.gateway");
                CompletableFuture<Void> gatewayReloaded = CompletableFuture
                        .runAsync(() -> awaitLiveness(gateway, gatewayCheck));
                awaitLiveness(rules, rulesCheck);
                gatewayReloaded.join();
            }
        }
    }

    /** Writes (adds, or edits) the service's liveness probe with a new check name; returns that name. */
    private static String writeProbe(DevMode dev, String pkg) {
        String check = "probe-" + UUID.randomUUID();
        dev.write("src/main/java/" + pkg.replace('.', '/') + "/devprobe/DevModeProbe.java", probe(pkg, check));
        return check;
    }

    private static void awaitLiveness(DevMode dev, String check) {
        await("the liveness check " + check + " served after a reload").atMost(RELOAD).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    dev.running();
                    dev.touch();
                    return Http.get(dev.managementUrl("/q/health/live"), Map.of()).body().contains(check);
                });
    }

    private static String probe(String pkg, String name) {
        return """
                package %s.devprobe;

                import org.eclipse.microprofile.health.HealthCheck;
                import org.eclipse.microprofile.health.HealthCheckResponse;
                import org.eclipse.microprofile.health.Liveness;

                @Liveness
                public class DevModeProbe implements HealthCheck {
                    @Override
                    public HealthCheckResponse call() {
                        return HealthCheckResponse.up("%s");
                    }
                }
                """.formatted(pkg, name);
    }
}
