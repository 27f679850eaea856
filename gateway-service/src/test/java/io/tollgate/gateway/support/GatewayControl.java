package io.tollgate.gateway.support;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;

/**
 * Drives the test servers over HTTP: installs rule sets and waits until the gateway applies them. The gateway's
 * public port is RestAssured's default; its management interface (health, metrics, operations) is
 * {@link #management()}.
 */
public final class GatewayControl {

    /** The admin token {@link GatewayResource} configures, as an {@code Authorization} header value. */
    public static final String ADMIN = "Bearer " + GatewayResource.ADMIN_TOKEN;
    /** The token the gateway presents to the rules service, as an {@code Authorization} header value. */
    public static final String RULES = "Bearer " + GatewayResource.RULES_TOKEN;
    /** A read-scope token of the gateway's operations, as an {@code Authorization} header value. */
    public static final String READ = "Bearer " + GatewayResource.READ_TOKEN;
    /** A gateway-scope token, which calls no operation, as an {@code Authorization} header value. */
    public static final String GATEWAY_SCOPE = "Bearer " + GatewayResource.GATEWAY_SCOPE_TOKEN;

    private static final AtomicLong VERSION = new AtomicLong(100);

    private GatewayControl() {
    }

    /**
     * The port of the gateway under test, the same for {@code @QuarkusTest} and the packaged jar of a
     * {@code @QuarkusIntegrationTest} (which injects nothing into a test, not even a config property).
     */
    public static int port() {
        return RestAssured.port;
    }

    /** A request to the gateway's management interface: {@code management().get("/q/metrics")}. */
    public static RequestSpecification management() {
        return RestAssured.given().baseUri("http://127.0.0.1").port(managementPort());
    }

    /** A request to the management interface with the admin token: {@code operations().get("/tollgate/top")}. */
    public static RequestSpecification operations() {
        return management().header("Authorization", ADMIN);
    }

    /**
     * The management port. Under {@code @QuarkusTest} the gateway binds a random one
     * ({@code quarkus.management.test-port=0}) and Quarkus reports it under that key; Quarkus tells a
     * {@code @QuarkusIntegrationTest} only the public port, so the packaged jar listens where {@link GatewayResource}
     * told it ({@code quarkus.management.port}, a free port).
     */
    public static int managementPort() {
        int random = ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
        return random > 0 ? random : ConfigProvider.getConfig().getValue("quarkus.management.port", Integer.class);
    }

    public static String config(String key) {
        return ConfigProvider.getConfig().getValue(key, String.class);
    }

    /** A version number no earlier call handed out. */
    public static long nextVersion() {
        return VERSION.incrementAndGet();
    }

    /** Serves {@code rulesJson} (a JSON array) as a new version and waits until the gateway enforces it. */
    public static long install(String rulesJson) {
        long version = nextVersion();
        serve("{\"version\":" + version + ",\"rules\":" + rulesJson + "}", version);
        awaitVersion(version);
        return version;
    }

    /** Serves {@code body} (valid or not) as {@code version}; does not wait. */
    public static void serve(String body, long version) {
        RestAssured.given()
                .baseUri(config("tollgate.rules.url"))
                .body(body)
                .put("/__rules?version=" + version)
                .then()
                .statusCode(200);
    }

    /** The version the gateway's readiness check reports. */
    public static long appliedVersion() {
        return appliedVersion(management().get("/q/health/ready").jsonPath());
    }

    private static long appliedVersion(JsonPath health) {
        Object version = health.get("checks.find { it.name == 'rules' }.data.version");
        return version == null ? -1 : ((Number) version).longValue();
    }

    /**
     * Waits until the gateway applies {@code version} and its warm-up is over, as an orchestrator waits for
     * readiness: the warm-up's own checks would otherwise land in a test's count of store calls.
     */
    public static void awaitVersion(long version) {
        Awaitility.await("gateway applies rules version " + version + ", warmed up")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    JsonPath health = management().get("/q/health/ready").jsonPath();
                    return appliedVersion(health) == version
                            && "UP".equals(health.get("checks.find { it.name == 'warmup' }.status"));
                });
    }

    /** Waits until the gateway reports ready (a rule set in force, the warm-up over). */
    public static void awaitReady() {
        awaitReady(Duration.ofSeconds(10));
    }

    /** Waits until the gateway reports ready, at most {@code bound}. */
    public static void awaitReady(Duration bound) {
        Awaitility.await("gateway ready")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> management().get("/q/health/ready").statusCode() == 200);
    }

    /** Backend hits since its last reset. */
    public static long backendHits() {
        return backendCount("hits");
    }

    /** The URIs of the downloads whose reader went away or was cut, since the backend's last reset. */
    public static java.util.List<String> brokenDownloads() {
        return RestAssured.given().baseUri(config("test.backend.url")).get("/__hits").jsonPath()
                .getList("brokenDownloads", String.class);
    }

    /** One of the backend's counters since its last reset ({@link TestBackend}: hits, uploadsBroken, ...). */
    public static long backendCount(String counter) {
        return RestAssured.given().baseUri(config("test.backend.url")).get("/__hits").jsonPath().getLong(counter);
    }

    /** The value of the metrics line that starts with {@code series} and a space (name and labels), 0 when absent. */
    public static double metric(String series) {
        return management().get("/q/metrics").asString().lines()
                .filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .findFirst()
                .orElse(0);
    }

    /** The gateway's decision counts for {@code ruleId} and its store errors, as its metrics lines say. */
    public static String decisions(String ruleId) {
        return management().get("/q/metrics").asString().lines()
                .filter(line -> line.startsWith("tollgate_store_errors_total")
                        || line.startsWith("tollgate_decisions_total") && line.contains("rule=\"" + ruleId + "\""))
                .collect(Collectors.joining("; "));
    }

    public static void resetBackend() {
        RestAssured.given().baseUri(config("test.backend.url")).get("/__reset").then().statusCode(200);
    }

    /** A token-bucket rule as JSON; {@code extra} is spliced in as more fields (may be empty). */
    public static String rule(String id, String path, String key, long limit, String period, long burst,
            String extra) {
        return "{\"id\":\"" + id + "\",\"match\":{\"path\":\"" + path + "\"},\"key\":\"" + key + "\",\"limit\":"
                + limit + ",\"period\":\"" + period + "\",\"burst\":" + burst
                + (extra.isEmpty() ? "" : "," + extra) + "}";
    }
}
