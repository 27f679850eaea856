package io.tollgate.rules.http;

import static io.restassured.RestAssured.given;
import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.GATEWAY;
import static io.tollgate.rules.Api.READ;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Directory.digest;
import static io.tollgate.rules.Directory.key;
import static io.tollgate.rules.Directory.putClient;
import static io.tollgate.rules.Directory.seq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.tollgate.rules.Directory;
import io.tollgate.rules.TestDatabase;

/**
 * A client's API key never needs a URL: the calls by key take it in {@code X-API-Key} or name the client by its
 * digest, a key in a path or in any call's query is refused (400 {@code key-in-url}, saying where it goes, never
 * repeating it, changing nothing), and the live view's explain hands the key to a gateway in a header, with this
 * service's token and none of the caller's credentials.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class KeysOutOfUrlsTest {

    private String key;

    @BeforeEach
    void aClient() {
        Directory.rules();
        key = key("url");
        putClient(key, "{\"plan\": \"pro\", \"label\": \"by header\"}").then().statusCode(201);
    }

    @Test
    void theKeyGoesInTheHeaderOrTheDigestInThePath() {
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().statusCode(200)
                .body("digest", is(digest(key))).body("label", is("by header"));
        reading().get("/api/v1/clients/digest/" + digest(key)).then().statusCode(200).body("label", is("by header"));
        reading().get("/api/v1/clients/digest/" + digest(key) + "/history").then().statusCode(200)
                .body("digest", is(digest(key))).body("revisions.actor", hasItem("admin"));
        reading().header("X-API-Key", key).get("/api/v1/clients/key/history").then().statusCode(200)
                .body("digest", is(digest(key)));
        as(ADMIN).delete("/api/v1/clients/digest/" + digest(key)).then().statusCode(204);
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().statusCode(404);
        as(ADMIN).header("X-API-Key", key).delete("/api/v1/clients/key").then().statusCode(404);
    }

    @Test
    void aKeyInThePathIsRefusedSayingWhereItGoesAndChangesNothing() {
        long before = seq();
        List<Response> refused = List.of(
                reading().get("/api/v1/clients/" + key),
                reading().get("/api/v1/clients/" + key + "/history"),
                as(ADMIN).body("{\"label\": \"by path\"}").put("/api/v1/clients/" + key),
                as(ADMIN).delete("/api/v1/clients/" + key));
        for (Response answer : refused) {
            answer.then().statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", is("key-in-url"))
                    .body("errors.field", hasItem("key"))
                    .body("detail", containsString("X-API-Key header"))
                    .body("detail", containsString("/api/v1/clients/digest/"));
            assertThat(answer.asString()).as("the refusal never repeats the key").doesNotContain(key);
        }
        assertThat(seq()).as("a refused call changes nothing").isEqualTo(before);
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().body("label", is("by header"));
    }

    @Test
    void aKeyInTheQueryOfTheCallsByKeyIsRefusedAndChangesNothing() {
        long before = seq();
        List<Response> refused = List.of(
                reading().header("X-API-Key", key).get("/api/v1/clients/key?api_key=" + key),
                as(ADMIN).header("X-API-Key", key).body("{\"label\": \"by query\"}")
                        .put("/api/v1/clients/key?api_key=" + key),
                as(ADMIN).header("X-API-Key", key).delete("/api/v1/clients/key?header.X-API-Key=" + key));
        for (Response answer : refused) {
            answer.then().statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", is("key-in-url"))
                    .body("errors[0].reason", containsString("X-API-Key"));
            assertThat(answer.asString()).as("the refusal never repeats the key").doesNotContain(key);
        }
        assertThat(seq()).as("a refused call changes nothing").isEqualTo(before);
        reading().header("X-API-Key", key).get("/api/v1/clients/key").then().body("label", is("by header"));
    }

    @Test
    void theWrongSideOfTheDoorMeetsTheTokenFirst() {
        // no token: 401, the same for the header form, the digest form and a key in the path (no oracle)
        for (String path : List.of("/api/v1/clients/key", "/api/v1/clients/digest/" + digest(key),
                "/api/v1/clients/" + key)) {
            given().header("X-API-Key", key).get(path).then().statusCode(401);
            given().header("Authorization", "Bearer guessed").header("X-API-Key", key).get(path).then()
                    .statusCode(403).body("type", is("forbidden"));
            // the gateway scope reads the rules and the directory's feed, no single client
            given().header("Authorization", GATEWAY).header("X-API-Key", key).get(path).then().statusCode(403)
                    .body("type", is("insufficient-scope"));
        }
        given().header("Authorization", READ).header("X-API-Key", key).body("{}").put("/api/v1/clients/key").then()
                .statusCode(403).body("type", is("insufficient-scope"));
        given().header("Authorization", READ).header("X-API-Key", key).delete("/api/v1/clients/key").then()
                .statusCode(403);
        given().get("/api/v1/explain?path=/x&api_key=" + key).then().statusCode(401);
    }

    @Test
    void explainTakesTheKeyInAHeaderAndRefusesItInTheQuery() {
        for (String query : List.of("api_key=" + key, "header.X-Customer=" + key)) {
            String answer = as(ADMIN).get("/api/v1/explain?method=GET&path=/orders/1&" + query).then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("type", is("key-in-url"))
                    .body("errors[0].field", is(query.substring(0, query.indexOf('='))))
                    .body("errors[0].reason", containsString("X-API-Key"))
                    .extract().asString();
            assertThat(answer).doesNotContain(key);
        }
    }

    @Test
    void theLiveViewHandsTheKeyToAGatewayInAHeaderWithItsOwnToken() throws IOException {
        Map<String, String> seen = new ConcurrentHashMap<>();
        HttpServer gateway = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        gateway.createContext("/tollgate/explain", exchange -> {
            seen.put("query", String.valueOf(exchange.getRequestURI().getRawQuery()));
            exchange.getRequestHeaders().forEach((name, values) -> seen.put(name.toLowerCase(), values.get(0)));
            byte[] body = "{\"rules\": []}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        gateway.start();
        try {
            String id = id("gw-keys");
            given().header("Authorization", GATEWAY).header("Tollgate-Gateway", id)
                    .header("Tollgate-Gateway-Admin", "http://127.0.0.1:" + gateway.getAddress().getPort())
                    .get("/api/v1/rules").then().statusCode(200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> as(ADMIN).header("X-API-Key", key)
                    .header("X-Customer", "c-1").header("Cookie", "tollgate_session=not-for-gateways")
                    .get("/api/v1/explain?method=POST&path=/orders/1").then().statusCode(200)
                    .body("gateway", is(id)));
            assertThat(seen.get("query").split("&")).as("in any order").containsExactlyInAnyOrder("method=POST",
                    "path=%2Forders%2F1");
            assertThat(seen.get("x-api-key")).isEqualTo(key);
            assertThat(seen.get("x-customer")).isEqualTo("c-1");
            assertThat(seen.get("authorization")).as("the token the gateway polled with").isEqualTo(GATEWAY);
            assertThat(seen).doesNotContainKey("cookie");
        } finally {
            gateway.stop(0);
        }
    }
}
