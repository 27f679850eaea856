package io.tollgate.rules.auth;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.GATEWAY;
import static io.tollgate.rules.Api.READ;
import static io.tollgate.rules.Api.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.tollgate.rules.Directory;
import io.tollgate.rules.SseClient;
import io.tollgate.rules.TestDatabase;

/**
 * Every call of the API × every kind of caller → the status it gets: no token 401, a wrong token 403, a token of
 * too weak a scope 403, a token whose scope covers the call whatever the call itself answers. An allowed write is
 * sent a body the call refuses (400, 415) or names nothing (404), so the table changes nothing.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class ScopesTest {

    private static final String REAL_KEY = "ak_scopes_real_client";
    private static final String NO_RULE = "scopes-no-such-rule";
    private static final String NO_TENANT = "scopes-no-such-tenant";
    private static final String JSON = "application/json";
    private static final String NDJSON = "application/x-ndjson";

    /** A call and what it answers once through the door. */
    record Call(String method, String path, String contentType, String body, int allowed, boolean gatewayMay,
            String apiKey) {

        static Call get(String path, int allowed) {
            return new Call("GET", path, null, null, allowed, false, null);
        }

        static Call polled(String path, int allowed) {
            return new Call("GET", path, null, null, allowed, true, null);
        }

        static Call write(String method, String path, String contentType, String body, int allowed) {
            return new Call(method, path, contentType, body, allowed, false, null);
        }

        /** The same call with {@code key} in the X-API-Key header. */
        Call withKey(String key) {
            return new Call(method, path, contentType, body, allowed, gatewayMay, key);
        }

        boolean read() {
            return method.equals("GET");
        }

        @Override
        public String toString() {
            return method + " " + path + (apiKey == null ? "" : " (X-API-Key: " + apiKey + ")");
        }
    }

    static List<Call> calls() {
        String digest = Directory.digest(REAL_KEY);
        return List.of(
                Call.polled("/api/v1/rules", 200),
                Call.polled("/api/v1/rules/watch?since=yesterday", 400),
                Call.polled("/api/v1/directory?since=0&limit=1", 200),
                Call.polled("/api/v1/directory/copy", 200),
                Call.polled("/api/v1/clients?digest=" + digest, 200),
                Call.get("/api/v1/rules/" + NO_RULE, 404),
                Call.get("/api/v1/rules/" + NO_RULE + "/history", 404),
                Call.get("/api/v1/clients/key", 200).withKey(REAL_KEY),
                Call.get("/api/v1/clients/key", 404).withKey("ak_nope_123"),
                Call.get("/api/v1/clients/key", 400),
                Call.get("/api/v1/clients/" + REAL_KEY, 400),
                Call.get("/api/v1/clients/digest/" + digest, 200),
                Call.get("/api/v1/clients/key/history", 200).withKey(REAL_KEY),
                Call.get("/api/v1/clients/digest/" + digest + "/history", 200),
                Call.get("/api/v1/clients/" + REAL_KEY + "/history", 400),
                Call.get("/api/v1/explain?path=/x&api_key=" + REAL_KEY, 400),
                Call.get("/api/v1/tenants", 200),
                Call.get("/api/v1/tenants/" + NO_TENANT, 404),
                Call.get("/api/v1/tenants/" + NO_TENANT + "/history", 404),
                Call.get("/api/v1/gateways", 200),
                Call.get("/api/v1/live", 200),
                Call.get("/api/v1/top", 400),
                Call.write("POST", "/api/v1/rules", JSON, "not json", 400),
                Call.write("PUT", "/api/v1/rules", JSON, "not json", 400),
                Call.write("PUT", "/api/v1/rules/" + NO_RULE, JSON, "not json", 400),
                Call.write("DELETE", "/api/v1/rules/" + NO_RULE, null, null, 404),
                Call.write("PUT", "/api/v1/clients", JSON, "{}", 415),
                Call.write("PUT", "/api/v1/clients/key", JSON, "not json", 422).withKey(REAL_KEY),
                Call.write("PUT", "/api/v1/clients/" + REAL_KEY, JSON, "{}", 400),
                Call.write("PUT", "/api/v1/clients/digest/" + digest, JSON, "not json", 422),
                Call.write("DELETE", "/api/v1/clients/key", null, null, 404).withKey("ak_nope_123"),
                Call.write("DELETE", "/api/v1/clients/ak_nope_123", null, null, 400),
                Call.write("DELETE", "/api/v1/clients/digest/" + Directory.digest("ak_nope_123"), null, null, 404),
                Call.write("PUT", "/api/v1/tenants/" + NO_TENANT, JSON, "not json", 422),
                Call.write("DELETE", "/api/v1/tenants/" + NO_TENANT, null, null, 404));
    }

    static Stream<Arguments> table() {
        List<Arguments> rows = new ArrayList<>();
        for (Call call : calls()) {
            int forbidden = 403;
            rows.add(Arguments.of(call, "no token", null, 401, "unauthorized"));
            rows.add(Arguments.of(call, "wrong token", "Bearer not-a-token", 403, "forbidden"));
            rows.add(Arguments.of(call, "read", READ, call.read() ? call.allowed() : forbidden,
                    call.read() ? null : "insufficient-scope"));
            rows.add(Arguments.of(call, "gateway", GATEWAY, call.gatewayMay() ? call.allowed() : forbidden,
                    call.gatewayMay() ? null : "insufficient-scope"));
            rows.add(Arguments.of(call, "admin", ADMIN, call.allowed(), null));
        }
        return rows.stream();
    }

    @BeforeEach
    void aRealClient() {
        Directory.rules();
        Directory.putClient(REAL_KEY, "{\"plan\": \"pro\", \"label\": \"scopes\"}").then().statusCode(
                org.hamcrest.Matchers.oneOf(200, 201));
    }

    @ParameterizedTest(name = "{0} with {1} → {3}")
    @MethodSource("table")
    void everyCallWithEveryKindOfCaller(Call call, String who, String authorization, int status, String type) {
        RequestSpecification request = given();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (call.contentType() != null) {
            request.contentType(call.contentType()).body(call.body());
        }
        if (call.apiKey() != null) {
            request.header("X-API-Key", call.apiKey());
        }
        Response answer = request.request(call.method(), call.path());
        assertThat(answer.statusCode()).as("%s with %s", call, who).isEqualTo(status);
        if (type != null) {
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.jsonPath().getString("type")).isEqualTo(type);
        }
        if (status == 401) {
            assertThat(answer.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"tollgate\"");
        }
    }

    @Test
    void theKeyOracleIsClosed() {
        // a stranger learns nothing of which keys exist: the same 401 for a real key and a made-up one
        Response real = given().header("X-API-Key", REAL_KEY).get("/api/v1/clients/key");
        Response madeUp = given().header("X-API-Key", "ak_nope_123").get("/api/v1/clients/key");
        assertThat(real.statusCode()).isEqualTo(401);
        assertThat(madeUp.statusCode()).isEqualTo(401);
        assertThat(real.asString()).isEqualTo(madeUp.asString());
    }

    @Test
    void aGatewayTokenReachesNoOtherCallThroughAHostileSpellingOfItsOwnPaths() {
        given().header("Authorization", GATEWAY).get("/api/v1/directory/copy").then().statusCode(200)
                .contentType(io.tollgate.rules.domain.DirectoryCopyFormat.MEDIA_TYPE);
        // the scope is judged on the path as routed (dot segments and doubled slashes resolved): a spelling that
        // climbs out of the directory's paths is judged as where it lands, a call the gateway scope does not cover
        for (String spelling : List.of("/api/v1/directory/copy/../../tenants", "/api/v1/directory/../tenants",
                "/api/v1/directory//..//tenants", "/api/v1/directory/%2E%2E/tenants", "/api/v1/rules/../tenants",
                "//api/v1/directory/copy/../../tenants")) {
            Response answer = given().urlEncodingEnabled(false).header("Authorization", GATEWAY).get(spelling);
            assertThat(answer.statusCode()).as(spelling).isIn(400, 403, 404);
            assertThat(answer.asString()).as(spelling).doesNotContain("\"tenants\":[");
        }
    }

    @Test
    void theWatchStreamOpensForGatewayReadAndAdminTokensOnly() {
        for (String token : List.of(GATEWAY, READ, ADMIN)) {
            try (SseClient watch = SseClient.openAs("/api/v1/rules/watch", token)) {
                // the stream's opening comment: a refusal is a problem+json body, never a comment
                await().atMost(Duration.ofSeconds(5)).until(() -> !watch.comments().isEmpty());
            }
        }
        given().get("/api/v1/rules/watch").then().statusCode(401).contentType("application/problem+json");
        given().header("Authorization", "Bearer guessed").get("/api/v1/rules/watch").then().statusCode(403);
    }

    @Test
    void aGatewayTokenRegistersALiveGatewayAndAReadTokenDoesNot() {
        String gateway = io.tollgate.rules.Api.id("scoped-gw");
        String reader = io.tollgate.rules.Api.id("scoped-reader");
        given().header("Authorization", GATEWAY).header("Tollgate-Gateway", gateway).get("/api/v1/rules").then()
                .statusCode(200);
        given().header("Authorization", READ).header("Tollgate-Gateway", reader).get("/api/v1/rules").then()
                .statusCode(200);
        given().header("Tollgate-Gateway", reader).post("/api/v1/rules").then().statusCode(401);
        List<String> ids = as(ADMIN).get("/api/v1/gateways").then().statusCode(200).extract().path("gateways.id");
        assertThat(ids).contains(gateway).doesNotContain(reader);
    }

    @Test
    void onlyAnAdminTokenOpensTheConsole() {
        for (String token : List.of("test-read-token", "test-gateway-token")) {
            given().redirects().follow(false).contentType("application/x-www-form-urlencoded").formParam("token", token)
                    .post("/console/login").then().statusCode(403).header("Set-Cookie", org.hamcrest.Matchers.nullValue());
        }
        given().redirects().follow(false).contentType("application/x-www-form-urlencoded")
                .formParam("token", "test-alice-token").post("/console/login").then().statusCode(303);
    }

    @Test
    void theBearerSchemeIsCaseInsensitive() {
        given().header("Authorization", "bearer test-read-token").get("/api/v1/rules").then().statusCode(200);
        given().header("Authorization", "BEARER test-admin-token").get("/api/v1/gateways").then().statusCode(200);
    }

    @Test
    void everyOtherSpellingOfTheHeaderIsRefused() throws IOException, InterruptedException {
        for (String value : List.of("Bearer  test-admin-token", "Bearer\ttest-admin-token",
                "Bearer", "Bearer ", "Basic YWRtaW46dGVzdC1hZG1pbi10b2tlbg==", "Bearertest-admin-token")) {
            Response answer = given().header("Authorization", value).get("/api/v1/rules");
            assertThat(answer.statusCode()).as(value).isEqualTo(400);
            assertThat(answer.jsonPath().getString("type")).isEqualTo("bad-authorization");
        }
        // two Authorization headers, even two right ones, are one too many
        for (List<String> both : List.of(List.of(ADMIN, ADMIN), List.of(READ, ADMIN), List.of(ADMIN, "Bearer x"))) {
            String two = socket("GET /api/v1/rules HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: "
                    + both.get(0) + "\r\nAuthorization: " + both.get(1) + "\r\n\r\n");
            assertThat(two).as("%s", both).startsWith("HTTP/1.1 400").contains("more than one Authorization header");
        }
    }

    @Test
    void aMalformedHeaderBeatsASessionCookie() throws IOException, InterruptedException {
        HttpResponse<String> answer = raw(Map.of("Cookie", "tollgate_session=anything"), List.of("Bearer  x"));
        assertThat(answer.statusCode()).isEqualTo(400);
        given().cookie("tollgate_session", "made-up").get("/api/v1/rules").then().statusCode(401)
                .body("title", is("Session ended"));
    }

    /** One exchange written byte for byte, so that no client library merges or drops a header. */
    private static String socket(String request) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static HttpResponse<String> raw(Map<String, String> headers, List<String> authorizations)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + RestAssured.port + "/api/v1/rules")).timeout(Duration.ofSeconds(5));
        headers.forEach(request::header);
        authorizations.forEach(a -> request.header("Authorization", a));
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
