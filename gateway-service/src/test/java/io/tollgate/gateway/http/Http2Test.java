package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendCount;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.tollgate.gateway.support.DocumentedCurl;
import io.tollgate.gateway.support.ErrorLines;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.H2Client;
import io.tollgate.gateway.support.H2Client.Answer;
import io.tollgate.gateway.support.RawH2;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.StreamResetException;
import io.vertx.core.json.JsonObject;

/**
 * HTTP/2 in clear text on the public port, by prior knowledge and by upgrade, limited as HTTP/1.1 is; the
 * gateway's header and body limits on HTTP/2 (a refusal over HTTP/2 is well-formed); and an upstream marked {@code h2c://} (the
 * test backend's {@code /h2c} route),
 * reached in HTTP/2 over one reused connection, its trailers relayed. Real sockets, a real Redis.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "max-body-size", value = "4K"))
class Http2Test {

    private static boolean installed;
    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "h2-" + UUID.randomUUID();
        resetBackend();
        if (!installed) {
            install("[" + rule("h2.per-key", "/limited/**", "api_key", 2, "1m", 2, "") + "]");
            installed = true;
        }
    }

    @Test
    void priorKnowledgeIsLimitedAsHttp11Is() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            assertLimitedTwiceThenRejected(h2);
        }
    }

    @Test
    void anUpgradedConnectionIsLimitedAsHttp11Is() throws Exception {
        try (H2Client h2 = new H2Client(port(), true)) {
            assertLimitedTwiceThenRejected(h2);
        }
    }

    @Test
    void aClientThatResetsEveryStreamIsCutOff() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            // Vert.x's bound, which Quarkus keeps: 200 resets in 30 s, then GOAWAY
            int sent = h2.resetUntilClosed("/limited/reset", 1_000, apiKey);
            assertThat(sent).as("the gateway closes the connection of a rapid-reset flood").isBetween(1, 400);
        }
        try (H2Client h2 = new H2Client(port(), false)) {
            assertThat(h2.get("/anything", "X-API-Key", apiKey).status()).as("and serves the next connection")
                    .isEqualTo(200);
        }
    }

    @Test
    void theDocumentedCurlCallsSpeakHttp2AndCurlReadsTheRefusal() throws Exception {
        Map<String, String> here = Map.of("8080", Integer.toString(port()), "/orders/1", "/limited/docs", "ak_42",
                apiKey);
        Path dir = Path.of(".");
        assertThat(DocumentedCurl.run("curl --http2-prior-knowledge", here, dir))
                .as("prior knowledge, then an upgrade").containsExactly("2 200", "2 200");
        assertThat(DocumentedCurl.run("curl --http2-prior-knowledge", here, dir))
                .as("curl's nghttp2 takes the gateway's 429 as well-formed").containsExactly("2 429", "2 429");
    }

    private void assertLimitedTwiceThenRejected(H2Client h2) throws Exception {
        for (int remaining = 1; remaining >= 0; remaining--) {
            Answer allowed = h2.get("/limited/a", "X-API-Key", apiKey);
            assertThat(allowed.version()).isEqualTo(HttpVersion.HTTP_2);
            assertThat(allowed.status()).isEqualTo(200);
            assertThat(allowed.headers().get("RateLimit-Policy")).isEqualTo("\"h2.per-key\";q=2;w=60");
            assertThat(allowed.headers().get("RateLimit-Remaining")).isEqualTo(Integer.toString(remaining));
            JsonObject echo = new JsonObject(allowed.body());
            assertThat(echo.getString("version")).as("the default upstream is HTTP/1.1").isEqualTo("HTTP_1_1");
            assertThat(echo.getJsonObject("headers").getString("x-forwarded-proto")).isEqualTo("http");
            assertThat(echo.getJsonObject("headers").getString("x-forwarded-host")).isEqualTo("127.0.0.1:" + port());
        }
        Answer rejected = h2.get("/limited/a", "X-API-Key", apiKey);
        assertThat(rejected.version()).isEqualTo(HttpVersion.HTTP_2);
        assertThat(rejected.status()).isEqualTo(429);
        assertThat(Long.parseLong(rejected.headers().get("Retry-After"))).isBetween(1L, 60L);
        assertThat(rejected.headers().get("RateLimit-Remaining")).isEqualTo("0");
        assertThat(new JsonObject(rejected.body()).getJsonArray("violated-policies").getList())
                .containsExactly("h2.per-key");
        assertThat(backendHits()).as("the rejected request never reached the backend").isEqualTo(2);
    }

    @Test
    void aLongApiKeyPassesOnHttp2AsOnHttp11() throws Exception {
        String longKey = "k".repeat(10 * 1024) + UUID.randomUUID();
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer allowed = h2.get("/limited/a", "X-API-Key", longKey);
            assertThat(allowed.status()).as("quarkus.http.limits.max-header-list-size=32768").isEqualTo(200);
            assertThat(allowed.headers().get("RateLimit-Remaining")).isEqualTo("1");
        }
    }

    @Test
    void aConnectionHeaderOverHttp2IsAMalformedStreamThatCostsNothing() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            // RFC 9113 §8.2.2: Netty resets the stream (PROTOCOL_ERROR) before the gateway reads it
            assertThatThrownBy(() -> h2.get("/limited/conn", "X-API-Key", apiKey, "Connection", "X-API-Key"))
                    .rootCause().isInstanceOf(StreamResetException.class)
                    .extracting(e -> ((StreamResetException) e).getCode()).isEqualTo(1L);
            assertThat(backendHits()).as("the backend served").isZero();

            Answer next = h2.get("/limited/after", "X-API-Key", apiKey);
            assertThat(next.status()).as("the connection serves its next stream").isEqualTo(200);
            assertThat(next.headers().get("RateLimit-Remaining")).as("the reset stream was not counted").isEqualTo("1");
        }
    }

    @Test
    void aClientsCancelReachesTheUpstreamAsCancelAndLogsNoError() throws Exception {
        try (H2Client h2 = new H2Client(port(), false); ErrorLines errors = ErrorLines.collect()) {
            // a request whose body is still to come, then one sent whole whose answer is awaited: each cancelled
            HttpClientRequest uploading = h2.sendHead("/h2c/hold", apiKey);
            uploading.write("the first part of a body");
            awaitHeld(1);
            uploading.reset(0x8);
            await("the upstream's stream reset").atMost(Duration.ofSeconds(10)).until(() -> resetCodes().size() == 1);

            HttpClientRequest waiting = h2.sendGet("/h2c/hold", apiKey);
            awaitHeld(1);
            waiting.reset(0x8);
            await("the upstream's stream reset").atMost(Duration.ofSeconds(10)).until(() -> resetCodes().size() == 2);

            assertThat(resetCodes()).as("CANCEL, as the client sent it, not NO_ERROR").containsExactly(8, 8);
            assertThat(errors.lines()).as("a cancel is no error").isEmpty();
        }
    }

    private static void awaitHeld(int held) {
        await("the backend holds the request").atMost(Duration.ofSeconds(10)).until(() -> RestAssured.given()
                .baseUri(config("test.backend.url")).get("/__held").jsonPath().getInt("held") == held);
    }

    private static List<Integer> resetCodes() {
        return RestAssured.given().baseUri(config("test.backend.url")).get("/__hits").jsonPath()
                .getList("resetCodes", Integer.class);
    }

    @Test
    void theGatewayAdvertisesHowManyStreamsAConnectionMayOpen() throws Exception {
        try (RawH2 raw = new RawH2(port())) {
            assertThat(raw.serverSettings()).as("SETTINGS_MAX_CONCURRENT_STREAMS (0x3)").containsEntry(0x3, 100L);
        }
    }

    /** RFC 9113 §8.2.1: what a request's field may not hold; each carries {@code forged}, which no answer may echo. */
    static Stream<Arguments> malformedFields() {
        return Stream.of(Arguments.of("a value with CR LF", "x-note", "1\r\nx-api-key: forged"),
                Arguments.of("a value with NUL", "x-note", "1\0forged"),
                Arguments.of("a name with a space", "x forged", "1"),
                Arguments.of("a name with a colon", "x:forged", "1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedFields")
    void aMalformedHeaderIsA400ThatEchoesNoRawBytesAndCostsNothing(String what, String field, String sent)
            throws Exception {
        double before = metric("tollgate_refused_total{reason=\"bad-header\"}");
        try (RawH2 raw = new RawH2(port())) {
            RawH2.Answer answer = raw.get("/limited/malformed",
                    List.of(new String[]{"x-api-key", apiKey}, new String[]{field, sent}));
            assertThat(answer.status()).as(what + ": the client's fault, not the upstream's").isEqualTo(400);
            JsonObject problem = new JsonObject(answer.body());
            assertThat(problem.getString("type")).isEqualTo("bad-header");
            assertThat(problem.getString("detail")).contains("RFC 9113 §8.2.1");
            assertThat(answer.body()).as("no raw bytes echoed").doesNotContain("forged");
        }
        assertThat(metric("tollgate_refused_total{reason=\"bad-header\"}") - before).isEqualTo(1.0);
        assertThat(backendHits()).as("the backend served").isZero();
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer next = h2.get("/limited/after", "X-API-Key", apiKey);
            assertThat(next.headers().get("RateLimit-Remaining")).as("the refusal was not counted").isEqualTo("1");
        }
    }

    @Test
    void theBodyLimitHoldsOnHttp2() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer small = h2.send(HttpMethod.POST, "/upload", MultiMap.caseInsensitiveMultiMap(),
                    Buffer.buffer(new byte[3 * 1024]));
            assertThat(small.status()).isEqualTo(200);
            assertThat(new JsonObject(small.body()).getLong("bytes")).isEqualTo(3 * 1024);
            Answer large = h2.send(HttpMethod.POST, "/upload", MultiMap.caseInsensitiveMultiMap(),
                    Buffer.buffer(new byte[5 * 1024]));
            assertThat(large.status()).as("quarkus.http.limits.max-body-size=4K").isEqualTo(413);
        }
        assertThat(backendHits()).as("the refused upload never reached the backend").isEqualTo(1);
    }

    @Test
    void anH2cUpstreamIsSpokenToInHttp2OverOneConnection() throws Exception {
        long connectionsBefore = backendCount("connections");
        try (H2Client h2 = new H2Client(port(), false)) {
            for (int i = 0; i < 20; i++) {
                Answer answer = h2.get("/h2c/echo/" + i, "X-Custom", "kept", "TE", "trailers");
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.headers().get("X-Backend")).isEqualTo("test");
                JsonObject echo = new JsonObject(answer.body());
                assertThat(echo.getString("version")).isEqualTo("HTTP_2");
                assertThat(echo.getString("uri")).isEqualTo("/h2c/echo/" + i);
                assertThat(echo.getJsonObject("headers").getString("x-custom")).isEqualTo("kept");
                assertThat(echo.getJsonObject("headers").getString("x-forwarded-for")).isEqualTo("127.0.0.1");
                assertThat(echo.getJsonObject("headers").getString("te"))
                        .as("the gateway relays trailers, so it says so for itself (gRPC servers look for it)")
                        .isEqualTo("trailers");
            }
        }
        // one client connection lands on one event loop, whose HTTP/2 connection carries all twenty; the count's
        // own query is one more
        assertThat(backendCount("connections") - connectionsBefore).isLessThanOrEqualTo(2);
        assertThat(backendHits()).isEqualTo(20);
    }

    @Test
    void answersOfManyStreamsAtOnceFromAnH2cUpstreamArriveWhole() throws Exception {
        long connectionsBefore = backendCount("connections");
        List<String> uris = IntStream.range(0, 40)
                .mapToObj(i -> i % 2 == 0 ? "/h2c/echo/" + i : "/h2c/" + i + "/trailers")
                .toList();
        try (H2Client h2 = new H2Client(port(), false)) {
            List<Answer> answers = h2.getAll(uris);
            for (int i = 0; i < uris.size(); i++) {
                Answer answer = answers.get(i);
                assertThat(answer.status()).isEqualTo(200);
                if (i % 2 == 0) {
                    assertThat(new JsonObject(answer.body()).getString("uri")).isEqualTo(uris.get(i));
                } else {
                    assertThat(answer.body()).isEqualTo("first part, last part");
                    assertThat(answer.trailers().get("grpc-status")).isEqualTo("0");
                }
            }
        }
        // forty streams at once still share the loop's one HTTP/2 connection; the count's own query is one more
        assertThat(backendCount("connections") - connectionsBefore).isLessThanOrEqualTo(2);
        assertThat(backendHits()).isEqualTo(40);
    }

    @Test
    void anHttp11ClientReachesAnH2cUpstreamWithHeadersAndBody() {
        JsonPath echo = RestAssured.given().header("X-Custom", "kept").body("0123456789")
                .post("/h2c/things?x=1")
                .then()
                .statusCode(200)
                .header("X-Backend", "test")
                .extract()
                .jsonPath();
        assertThat(echo.getString("version")).isEqualTo("HTTP_2");
        assertThat(echo.getString("uri")).isEqualTo("/h2c/things?x=1");
        assertThat(echo.getString("authority")).as("the upstream's own, as on HTTP/1.1")
                .isEqualTo(config("test.backend.url").replace("http://", ""));
        assertThat(echo.getLong("bytes")).isEqualTo(10);
    }

    @Test
    void anH2cUpstreamsTrailersReachAnHttp2Client() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer answer = h2.get("/h2c/trailers");
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("first part, last part");
            assertThat(answer.trailers().get("grpc-status")).isEqualTo("0");
            assertThat(answer.trailers().get("x-checksum")).isEqualTo("c0ffee");
        }
    }
}
