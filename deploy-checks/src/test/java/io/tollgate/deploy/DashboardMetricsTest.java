package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The Grafana dashboard's queries name metrics a real gateway exports: the packaged gateway is started on free
 * ports (rules from a snapshot file, the machine's Redis as its store), serves one limited request, and the
 * {@code /q/metrics} of its management interface is scraped.
 */
class DashboardMetricsTest {

    private static final Pattern METRIC = Pattern.compile("\\btollgate_[a-z_]+");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static Process gateway;
    private static int port;
    private static int managementPort;

    @BeforeAll
    static void startGateway() throws Exception {
        Path dir = Files.createTempDirectory("tollgate-dashboard-check");
        Path snapshot = dir.resolve("rules.json");
        Files.writeString(snapshot, """
                {"version": 1, "rules": [{"id": "dashboard.check", "match": {"path": "/**"}, "key": "api_key",
                  "limit": 5, "period": "1m"}]}
                """);
        port = freePort();
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", Repo.path("gateway-service/target/quarkus-app/quarkus-run.jar").toString());
        managementPort = freePort();
        builder.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        builder.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        builder.environment().put("TOLLGATE_RULES_URL", "http://127.0.0.1:" + freePort());
        builder.environment().put("TOLLGATE_RULES_SNAPSHOT", snapshot.toString());
        builder.environment().put("TOLLGATE_GATEWAY_UPSTREAM", "http://127.0.0.1:" + freePort());
        builder.environment().put("TOLLGATE_STORE_TIMEOUT", "500ms");
        builder.environment().put("QUARKUS_REDIS_HOSTS", "redis://127.0.0.1:6379");
        gateway = builder.redirectErrorStream(true).redirectOutput(dir.resolve("gateway.log").toFile()).start();
        Awaitility.await("gateway ready (log: " + dir.resolve("gateway.log") + ")").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    assertThat(gateway.isAlive()).as("gateway running").isTrue();
                    return status("/q/health/ready") == 200;
                });
        // one request the rule counts (the upstream is down: 502, after the decision)
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/anything")).header("X-API-Key", "dash"));
    }

    @AfterAll
    static void stopGateway() throws InterruptedException {
        if (gateway != null) {
            gateway.destroyForcibly().waitFor();
        }
    }

    @Test
    void everyMetricTheDashboardQueriesIsExported() {
        JsonNode dashboard = Repo.json("docker/grafana/dashboards/tollgate.json");
        Set<String> queried = new TreeSet<>();
        dashboard.path("panels").forEach(panel -> panel.path("targets").forEach(target -> {
            Matcher m = METRIC.matcher(target.path("expr").asText());
            while (m.find()) {
                queried.add(m.group());
            }
        }));
        assertThat(queried).contains("tollgate_decisions_total", "tollgate_store_latency_seconds_bucket",
                "tollgate_store_breaker_state");

        Set<String> exported = new TreeSet<>();
        Matcher m = METRIC
                .matcher(send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/metrics"))));
        while (m.find()) {
            exported.add(m.group());
        }
        assertThat(exported).containsAll(queried);
    }

    private static int status(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
