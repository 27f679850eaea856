package io.tollgate.rules;

import static io.restassured.RestAssured.given;

import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Small helpers shared by the HTTP tests: tokens, rule bodies, the current version, and the management
 * interface (health, metrics, OpenAPI), which is not the API's port.
 */
public final class Api {

    public static final String ADMIN = "Bearer test-admin-token";
    public static final String ALICE = "Bearer test-alice-token";
    public static final String BOB = "Bearer test-bob-token";
    /** A token of the read scope: every GET, nothing written. */
    public static final String READ = "Bearer test-read-token";
    /** A token of the gateway scope: the rules, their watch stream and the directory. */
    public static final String GATEWAY = "Bearer test-gateway-token";

    private Api() {
    }

    /** A valid rule body with this id and limit. */
    public static String rule(String id, long limit) {
        return """
                {"id": "%s", "match": {"methods": ["POST"], "path": "/orders/**"},
                 "key": "api_key", "limit": %d, "period": "1s", "burst": %d}""".formatted(id, limit, limit * 2);
    }

    /**
     * A request to the management interface: {@code management().get("/q/health/ready")}. Under
     * {@code @QuarkusTest} it is on a random port ({@code quarkus.management.test-port=0}), which Quarkus reports
     * under that key.
     */
    public static RequestSpecification management() {
        return given().baseUri("http://127.0.0.1")
                .port(ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class));
    }

    /** A request that writes as the given bearer. */
    public static RequestSpecification as(String bearer) {
        return given().header("Authorization", bearer).contentType(ContentType.JSON);
    }

    /** A request that reads with the read-scope token. */
    public static RequestSpecification reading() {
        return given().header("Authorization", READ);
    }

    /** A request that reads with the gateway-scope token, as a gateway polls. */
    public static RequestSpecification polling() {
        return given().header("Authorization", GATEWAY);
    }

    /** The current global version, read from the ETag of GET /rules. */
    public static long version() {
        Response r = reading().get("/api/v1/rules");
        return Long.parseLong(r.header("ETag").replace("\"", ""));
    }

    /** A unique rule id for one test. */
    public static String id(String prefix) {
        return prefix + "-" + Long.toString(System.nanoTime(), 36);
    }
}
