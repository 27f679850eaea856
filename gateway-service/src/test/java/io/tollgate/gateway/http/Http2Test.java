package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendCount;
import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.brokenDownloads;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
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

    /** The head of a GET of /limited/malformed with the test's key: the pseudo-headers first, as RawH2 sends them. */
    private static List<String[]> wellFormed(RawH2 raw, String apiKey) {
        List<String[]> fields = new ArrayList<>(raw.pseudoHeaders("GET", "/limited/malformed"));
        fields.add(new String[]{"x-api-key", apiKey});
        return fields;
    }

    private static UnaryOperator<List<String[]>> adding(int at, String name, String value) {
        return fields -> {
            List<String[]> changed = new ArrayList<>(fields);
            changed.add(at < 0 ? changed.size() : at, new String[]{name, value});
            return changed;
        };
    }

    private static UnaryOperator<List<String[]>> without(String name) {
        return fields -> fields.stream().filter(f -> !f[0].equals(name)).toList();
    }

    private static UnaryOperator<List<String[]>> replacing(String name, String value) {
        return fields -> fields.stream().map(f -> f[0].equals(name) ? new String[]{name, value} : f).toList();
    }

    /**
     * RFC 9113 §8.2.2 and §8.3: request heads that Netty or Vert.x refuse as a stream error (RST_STREAM PROTOCOL_ERROR)
     * before any request reaches the gateway. Each changes a well-formed head: pseudo-headers first (:method, :scheme,
     * :authority, :path), then x-api-key.
     */
    static Stream<Arguments> streamErrors() {
        return Stream.of(Arguments.of("an unknown pseudo-header", adding(4, ":forged", "1")),
                Arguments.of("a response pseudo-header (:status)", adding(4, ":status", "200")),
                Arguments.of("a pseudo-header after a regular field", adding(-1, ":path", "/limited/forged")),
                Arguments.of(":path twice", adding(4, ":path", "/forged")),
                Arguments.of(":path twice, alike", adding(4, ":path", "/limited/malformed")),
                Arguments.of(":method twice", adding(4, ":method", "POST")),
                Arguments.of(":scheme twice", adding(4, ":scheme", "https")),
                Arguments.of(":authority twice", adding(4, ":authority", "forged.example")),
                Arguments.of("no :method", without(":method")),
                Arguments.of("no :scheme", without(":scheme")),
                Arguments.of("no :path", without(":path")),
                Arguments.of("an empty :path", replacing(":path", "")),
                Arguments.of(":authority with userinfo", replacing(":authority", "forged@127.0.0.1")),
                Arguments.of("Host other than :authority", adding(-1, "host", "forged.example")),
                Arguments.of("Connection", adding(-1, "connection", "keep-alive")),
                Arguments.of("Keep-Alive", adding(-1, "keep-alive", "timeout=5")),
                Arguments.of("Proxy-Connection", adding(-1, "proxy-connection", "keep-alive")),
                Arguments.of("Transfer-Encoding", adding(-1, "transfer-encoding", "chunked")),
                Arguments.of("Upgrade", adding(-1, "upgrade", "websocket")),
                Arguments.of("TE other than trailers", adding(-1, "te", "gzip")),
                Arguments.of("TE listing more than trailers", adding(-1, "te", "trailers, gzip")),
                Arguments.of("Content-Length twice, unalike", twoLengths()));
    }

    private static UnaryOperator<List<String[]>> twoLengths() {
        return fields -> {
            List<String[]> changed = new ArrayList<>(fields);
            changed.add(new String[]{"content-length", "0"});
            changed.add(new String[]{"content-length", "1"});
            return changed;
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streamErrors")
    void aMalformedRequestHeadIsAStreamErrorThatCostsNothing(String what, UnaryOperator<List<String[]>> change)
            throws Exception {
        try (RawH2 raw = new RawH2(port())) {
            RawH2.Answer answer = raw.request(change.apply(wellFormed(raw, apiKey)));
            assertThat(answer.resetCode()).as(what + ": RST_STREAM PROTOCOL_ERROR").isEqualTo(RawH2.PROTOCOL_ERROR);
            assertThat(answer.status()).as("no answer but the reset").isZero();

            RawH2.Answer next = raw.get("/limited/after", List.<String[]>of(new String[]{"x-api-key", apiKey}));
            assertThat(next.status()).as("the connection serves its next stream").isEqualTo(200);
            assertThat(next.headers().get("ratelimit-remaining")).as("the reset stream was not counted")
                    .isEqualTo("1");
        }
        assertThat(backendHits()).as("only the well-formed request reached the backend").isEqualTo(1);
    }

    /**
     * RFC 9113 §8.3.1: request heads the libraries let through as requests: refused by the gateway with a 400 problem
     * naming the rule, never charged, counted by reason. {@code forged} is what no answer may echo.
     */
    static Stream<Arguments> refusedHeads() {
        return Stream.of(Arguments.of("a :path that is not a path", replacing(":path", "forged/limited"), "bad-path"),
                Arguments.of("a :path of * in a GET", replacing(":path", "*"), "bad-path"),
                Arguments.of("neither :authority nor Host", without(":authority"), "bad-host"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedHeads")
    void aMalformedRequestHeadTheLibrariesPassIsA400ThatCostsNothing(String what, UnaryOperator<List<String[]>> change,
            String type) throws Exception {
        double before = metric("tollgate_refused_total{reason=\"" + type + "\"}");
        try (ErrorLines errors = ErrorLines.collect(); RawH2 raw = new RawH2(port())) {
            RawH2.Answer answer = raw.request(change.apply(wellFormed(raw, apiKey)));
            assertThat(answer.status()).as(what).isEqualTo(400);
            JsonObject problem = new JsonObject(answer.body());
            assertThat(problem.getString("type")).isEqualTo(type);
            assertThat(problem.getString("detail")).contains("RFC 9113 §8.3.1");
            assertThat(answer.body()).as("no raw bytes echoed").doesNotContain("forged");
            assertThat(errors.lines()).as("a client's fault is no ERROR line").isEmpty();

            RawH2.Answer next = raw.get("/limited/after", List.<String[]>of(new String[]{"x-api-key", apiKey}));
            assertThat(next.headers().get("ratelimit-remaining")).as("the refusal was not counted").isEqualTo("1");
        }
        assertThat(metric("tollgate_refused_total{reason=\"" + type + "\"}") - before).isEqualTo(1.0);
        assertThat(backendHits()).as("only the well-formed request reached the backend").isEqualTo(1);
    }

    @Test
    void aStreamBrokenWhileItsUpstreamHoldsTheAnswerIsResetOnce() throws Exception {
        try (RawH2 raw = new RawH2(port())) {
            List<String[]> head = raw.pseudoHeaders("GET", "/h2c/hold");
            int stream = raw.open(head, true);
            awaitHeld(1);
            raw.headers(stream, head, true); // HEADERS on a stream the client ended (h2spec 5.1 #6)

            List<RawH2.Frame> frames = raw.framesFor(Duration.ofMillis(700));
            assertThat(frames).as("one RST_STREAM, and the connection stays").filteredOn(RawH2.Frame::isReset)
                    .singleElement().satisfies(reset -> {
                        assertThat(reset.stream()).isEqualTo(stream);
                        assertThat(reset.code()).as("Netty's code: PROTOCOL_ERROR where RFC 9113 §5.1 says "
                                + "STREAM_CLOSED").isIn(RawH2.PROTOCOL_ERROR, RawH2.STREAM_CLOSED);
                    });
            assertThat(frames).noneMatch(f -> f.isGoAway() || f.isClosed());
            await("the upstream's stream reset").atMost(Duration.ofSeconds(10)).until(() -> resetCodes().size() == 1);
            assertThat(resetCodes()).as("the upstream is told CANCEL").containsExactly(8);
            assertThat(raw.get("/anything", List.of()).status()).as("the connection serves its next stream")
                    .isEqualTo(200);
        }
    }

    @Test
    void aStreamBrokenWhileItsAnswerStreamsIsResetOnce() throws Exception {
        try (RawH2 raw = new RawH2(port())) {
            int stream = raw.open(raw.pseudoHeaders("GET", "/stall/1000"), true);
            assertThat(raw.head(stream)).containsEntry(":status", "200");
            raw.data(stream, new byte[]{'x'}, true); // DATA on a stream the client ended (h2spec 5.1 #5)

            List<RawH2.Frame> frames = raw.framesFor(Duration.ofMillis(700));
            assertThat(frames).filteredOn(RawH2.Frame::isReset).as("one RST_STREAM STREAM_CLOSED")
                    .singleElement().satisfies(reset -> {
                        assertThat(reset.stream()).isEqualTo(stream);
                        assertThat(reset.code()).isEqualTo(RawH2.STREAM_CLOSED);
                    });
            assertThat(frames).noneMatch(f -> f.isGoAway() || f.isClosed());
            assertThat(raw.get("/anything", List.of()).status()).as("the connection serves its next stream")
                    .isEqualTo(200);
        }
        await("the upstream's answer cut").atMost(Duration.ofSeconds(10))
                .until(() -> brokenDownloads().contains("/stall/1000"));
    }

    @Test
    void streamsBrokenAsH2specBreaksThemAreEachResetOnce() throws Exception {
        // h2spec 5.1 #5 and #6 in a loop: the second frame lands before, while or after the upstream answers
        for (int i = 0; i < 20; i++) {
            try (RawH2 raw = new RawH2(port())) {
                raw.serverSettings();
                List<String[]> head = raw.pseudoHeaders("GET", "/anything/" + i);
                int stream = raw.open(head, true);
                if (i % 2 == 0) {
                    raw.headers(stream, head, true);
                } else {
                    raw.data(stream, new byte[]{'x'}, true);
                }
                List<RawH2.Frame> frames = raw.framesFor(Duration.ofMillis(300));
                assertThat(frames).as("run %d: at most one RST_STREAM", i).filteredOn(RawH2.Frame::isReset)
                        .hasSizeLessThanOrEqualTo(1);
                assertThat(frames).as("run %d: the connection stays", i).noneMatch(f -> f.isGoAway() || f.isClosed());
            }
        }
    }

    /**
     * Runs {@code attack} while another client GETs /anything over its own connection, one request after another;
     * the statuses that client got meanwhile.
     */
    private static List<Integer> servedDuring(Callable<Void> attack) throws Exception {
        AtomicBoolean over = new AtomicBoolean();
        List<Integer> statuses = new CopyOnWriteArrayList<>();
        Thread other = new Thread(() -> {
            try (H2Client h2 = new H2Client(port(), false)) {
                while (!over.get() || statuses.isEmpty()) {
                    statuses.add(h2.get("/anything/served").status());
                }
            } catch (Exception e) {
                statuses.add(-1);
            }
        }, "second-client");
        other.start();
        try {
            attack.call();
        } finally {
            over.set(true);
            other.join(30_000);
        }
        return statuses;
    }

    @Test
    void aRapidResetFloodIsCutOffWhileAnotherClientIsServed() throws Exception {
        // a path the gateway forwards at once: each stream it takes asks the upstream pool for a connection, which a
        // stream reset meanwhile must give back (else 200 such streams a loop leave no connection for anyone)
        int connections = 4;
        List<RawH2.Flood> floods = new ArrayList<>();
        List<Integer> served = servedDuring(() -> {
            for (int i = 0; i < connections; i++) {
                try (RawH2 raw = new RawH2(port())) {
                    floods.add(raw.rapidReset("/anything/flood", List.of(), 5_000));
                }
            }
            return null;
        });
        for (RawH2.Flood flood : floods) {
            // quarkus.http.limits.rst-flood-max-rst-frame-per-window=200 in 30 s, then GOAWAY
            assertThat(flood.goAway()).as("GOAWAY: %s", flood).isNotNull()
                    .extracting(RawH2.Frame::code).isEqualTo(RawH2.ENHANCE_YOUR_CALM);
            assertThat(flood.closed()).as("the connection closed").isTrue();
        }
        assertThat(served).as("the other client, during the floods").isNotEmpty().containsOnly(200);
        assertThat(backendHits() - served.size()).as("what the floods cost the backend: at most a stream per reset")
                .isLessThanOrEqualTo(connections * 201L);
        try (H2Client h2 = new H2Client(port(), false)) {
            List<Answer> after = h2.getAll(IntStream.range(0, 300).mapToObj(i -> "/anything/after/" + i).toList());
            assertThat(after).as("the upstream connections the floods took are back: 300 at once are served")
                    .extracting(Answer::status).containsOnly(200);
        }
    }

    static Stream<Arguments> continuationFloods() {
        // Netty holds a header block to 1.25 x max-header-list-size (40 KB), then closes the connection; small frames
        // are cut at Vert.x's 16th (http2MaxSmallContinuationFrames)
        return Stream.of(Arguments.of("16 KB frames", 16_384, RawH2.PROTOCOL_ERROR),
                Arguments.of("100-byte frames", 100, RawH2.ENHANCE_YOUR_CALM));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("continuationFloods")
    void aContinuationFloodIsCutOffWhileAnotherClientIsServed(String what, int frameBytes, long code) throws Exception {
        long total = 32L * 1024 * 1024;
        List<RawH2.Flood> floods = new ArrayList<>();
        List<Integer> served = servedDuring(() -> {
            for (int i = 0; i < 4; i++) {
                try (RawH2 raw = new RawH2(port())) {
                    floods.add(raw.continuationFlood(frameBytes, total));
                }
            }
            return null;
        });
        for (RawH2.Flood flood : floods) {
            assertThat(flood.goAway()).as("GOAWAY: %s", flood).isNotNull().extracting(RawH2.Frame::code)
                    .isEqualTo(code);
            assertThat(flood.closed()).as("the connection closed").isTrue();
            assertThat(flood.bytesWritten()).as("the flood was stopped long before its 32 MB")
                    .isLessThan(total / 4);
        }
        assertThat(served).as("the other client, during the floods").isNotEmpty().containsOnly(200);
        assertThat(backendHits()).as("no flooded request reached the backend").isEqualTo(served.size());
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
