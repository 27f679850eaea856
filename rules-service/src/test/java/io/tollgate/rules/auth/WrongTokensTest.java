package io.tollgate.rules.auth;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.GATEWAY;
import static io.tollgate.rules.Api.READ;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.tollgate.rules.TestDatabase;

/**
 * Wrong admin tokens are throttled per client address, over real HTTP, and right ones are always served: each
 * test's calls come from their own loopback address (127.0.0.x), as callers on different hosts would.
 */
@QuarkusTest
@TestProfile(WrongTokensTest.ThreeAMinute.class)
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class WrongTokensTest {

    /** Three wrong tokens a minute per address. */
    public static class ThreeAMinute implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tollgate.admin.wrong-tokens.limit", "3", "tollgate.admin.wrong-tokens.period", "1m");
        }
    }

    @Test
    void anAddressThatPresentedTooManyWrongTokensHasThemRefusedWith429AndItsRightTokenIsServed() throws IOException {
        String id = id("guessed");
        long before = version();
        for (int i = 0; i < 3; i++) {
            assertThat(put("127.0.0.2", "Bearer guess-" + i, id).status()).as("wrong token %d", i).isEqualTo(403);
        }
        Answer refused = put("127.0.0.2", "Bearer guess-3", id);
        assertThat(refused.status()).as("the fourth wrong token").isEqualTo(429);
        assertThat(refused.head()).containsIgnoringCase("content-type: application/problem+json");
        assertThat(refused.body()).contains("\"type\":\"too-many-wrong-tokens\"");
        long retryAfter = Long.parseLong(refused.header("Retry-After"));
        assertThat(retryAfter).as("one wrong token back: a third of a minute").isBetween(1L, 20L);
        assertThat(version()).as("nothing written").isEqualTo(before);

        assertThat(put("127.0.0.2", ADMIN, id).status()).as("the right token, from the same address").isEqualTo(201);
        as(ADMIN).get("/api/v1/rules/" + id).then().statusCode(200);
        assertThat(put("127.0.0.2", "Bearer guess-4", id).status()).as("still throttled").isEqualTo(429);
    }

    @Test
    void rightTokensCostNothingAndTheLoginFormSharesTheAllowance() throws IOException {
        for (int i = 0; i < 10; i++) {
            assertThat(login("127.0.0.4", "test-admin-token").status()).as("right token %d", i).isEqualTo(303);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(login("127.0.0.4", "guess-" + i).status()).isEqualTo(401);
        }
        assertThat(put("127.0.0.4", "Bearer guess-2", id("shared")).status()).isEqualTo(403);
        Answer page = login("127.0.0.4", "guess-3");
        assertThat(page.status()).isEqualTo(429);
        assertThat(page.header("Retry-After")).isNotBlank();
        assertThat(page.body()).contains("id=\"login-error\"").contains("Too many wrong tokens");
        assertThat(login("127.0.0.4", "test-admin-token").status()).as("the right token still logs in").isEqualTo(303);
    }

    @Test
    void wrongTokensOnReadsAndPollsAreThrottledAndRightOnesServed() throws IOException {
        for (int i = 0; i < 3; i++) {
            assertThat(get("127.0.0.6", "Bearer guess-" + i, "/api/v1/clients/ak_guess_" + i).status()).isEqualTo(403);
        }
        assertThat(get("127.0.0.6", "Bearer guess-3", "/api/v1/rules").status()).isEqualTo(429);
        for (String right : List.of(READ, GATEWAY, ADMIN)) {
            assertThat(get("127.0.0.6", right, "/api/v1/rules").status()).as(right).isEqualTo(200);
        }
        assertThat(get("127.0.0.6", READ, "/api/v1/rules/watch?since=x").status()).isEqualTo(400);
    }

    private record Answer(int status, String head, String body) {

        String header(String name) {
            return head.lines().filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                    .map(l -> l.substring(name.length() + 1).trim()).findFirst().orElse(null);
        }
    }

    private static Answer put(String from, String authorization, String id) throws IOException {
        String body = rule(id, 1);
        return call(from, "PUT /api/v1/rules/" + id + " HTTP/1.1\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\n", body);
    }

    private static Answer get(String from, String authorization, String path) throws IOException {
        return call(from, "GET " + path + " HTTP/1.1\r\nAuthorization: " + authorization + "\r\n", "");
    }

    private static Answer login(String from, String token) throws IOException {
        return call(from, "POST /console/login HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n",
                "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
    }

    /** One HTTP/1.1 exchange on a connection from loopback address {@code from}. */
    private static Answer call(String from, String head, String body) throws IOException {
        int port = RestAssured.port;
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Host: 127.0.0.1\r\nConnection: close\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = answer.indexOf("\r\n\r\n");
            String top = end < 0 ? answer : answer.substring(0, end);
            return new Answer(Integer.parseInt(top.substring(9, 12)), top, end < 0 ? "" : answer.substring(end + 4));
        }
    }
}
