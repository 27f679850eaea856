package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.ErrorLines;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.tollgate.gateway.support.SmugglingCorpus;
import io.vertx.core.json.JsonObject;

/**
 * A client that wants more than its share, spelling one request every way a backend still reads as the same:
 * each spelling lands in the rule's bucket (two allowed, then 429 from that rule) or is refused with a 4xx, and the
 * backend, a real HTTP server, never serves more than the limit. Requests go over raw sockets, so no client
 * library tidies a path or a header first.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "store.timeout", value = "1s"),
        @ResourceArg(name = "trusted-proxies", value = "127.0.0.9/32")})
class HostileClientTest {

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String ORDERS = "corpus.orders." + RUN;
    private static final String BY_IP = "corpus.ip." + RUN;
    private static final String BY_HEADER = "corpus.header." + RUN;
    private static final int BURST = 2;
    private static boolean installed;

    /** The backend's hits counted so far by the smuggling probes, since its last reset. */
    private static long hitsSeen;

    @BeforeEach
    void rules() {
        hitsSeen = 0;
        if (!installed) {
            install("[{\"id\":\"" + ORDERS + "\",\"match\":{\"methods\":[\"POST\"],\"path\":\"/orders/**\"},"
                    + "\"key\":\"api_key\",\"limit\":1,\"period\":\"1m\",\"burst\":" + BURST + "},"
                    + "{\"id\":\"" + BY_IP + "\",\"match\":{\"path\":\"/by-ip/**\"},\"key\":\"ip\",\"limit\":1,"
                    + "\"period\":\"1m\",\"burst\":" + BURST + "},"
                    + "{\"id\":\"" + BY_HEADER + "\",\"match\":{\"path\":\"/by-header/**\"},\"key\":\"header:X-Tenant\","
                    + "\"limit\":1,\"period\":\"1m\",\"burst\":" + BURST + "}]");
            installed = true;
        }
        resetBackend();
    }

    /** Spellings of {@code POST /orders/1} that decoding backends (Tomcat, Spring, Express, ...) serve as it. */
    static Stream<String> sameRequest() {
        return Stream.of("/orders/1", "/%6Frders/1", "/%6frders/1", "/o%72ders/1", "/%6F%72%64%65%72%73/1",
                "/orders/%31", "/./orders/1", "/orders/./1", "/orders/1/.", "/x/../orders/1", "/orders/x/../1",
                "/%2E/orders/1", "/%2e/orders/1", "/x/%2E%2E/orders/1", "/x/%2e./orders/1", "/x/.%2E/orders/1",
                "//orders/1", "/orders//1", "///orders///1", "/orders/1//", "/orders;x=1/1", "/orders;/1",
                "/orders/1;jsessionid=a", "/x/..;/orders/1", "/x;y/..;z/orders/1", "/./x/./../orders/1",
                "/orders/1?x=1", "/orders/1?../../admin", "/%6Frders//./%31", "http://127.0.0.1/%6Frders/1");
    }

    @ParameterizedTest(name = "POST {0}")
    @MethodSource("sameRequest")
    void aRespelledPathLandsInTheRulesBucket(String target) throws IOException {
        String key = "k-" + UUID.randomUUID();
        List<RawHttp.Answer> answers = send(4, "127.0.0.1", "POST", target, List.of("X-API-Key: " + key));

        assertThat(answers).extracting(RawHttp.Answer::status).as("statuses").containsExactly(200, 200, 429, 429);
        for (RawHttp.Answer answer : answers.subList(0, BURST)) {
            String uri = new JsonObject(answer.body()).getString("uri");
            String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
            assertThat(path.replaceAll(";[^/]*", "")).as("what the backend received: %s", uri).isIn("/orders/1", "/orders/1/");
            assertThat(path).as("what the backend received").doesNotContain("/.", "//", "%");
        }
        assertThat(new JsonObject(answers.get(BURST).body()).getJsonArray("violated-policies")).containsExactly(ORDERS);
        assertThat(backendHits()).as("the backend served").isEqualTo(BURST);
    }

    /** A request line Vert.x's HTTP server cannot parse (a raw backslash, a broken escape) gets its bare 400. */
    private static final String UNPARSED = "unparsed by the HTTP server";

    /** Spellings that cannot be read safely: backends disagree on them, so none reaches one. */
    static Stream<Arguments> unsafe() {
        return Stream.of(
                Arguments.of("POST", "/orders%2F1", "bad-path"),
                Arguments.of("POST", "/orders%2f1", "bad-path"),
                Arguments.of("POST", "/orders%5C1", "bad-path"),
                Arguments.of("POST", "/orders%5c1", "bad-path"),
                Arguments.of("POST", "/orders\\1", UNPARSED),
                Arguments.of("POST", "/x\\..\\orders\\1", UNPARSED),
                Arguments.of("POST", "/orders%001", "bad-path"),
                Arguments.of("POST", "/orders/1%00", "bad-path"),
                Arguments.of("POST", "/orders/1%0d%0aX-API-Key:%20other", "bad-path"),
                Arguments.of("POST", "/%C0%AForders/1", "bad-path"),
                Arguments.of("POST", "/orders/%C0%AE%C0%AE/1", "bad-path"),
                Arguments.of("POST", "/orders/%E0%80%AE/1", "bad-path"),
                Arguments.of("POST", "/orders/%ED%A0%80", "bad-path"),
                Arguments.of("POST", "/orders/%FF", "bad-path"),
                Arguments.of("POST", "/orders%", UNPARSED),
                Arguments.of("POST", "/orders%4", UNPARSED),
                Arguments.of("POST", "/orders%G1", UNPARSED),
                Arguments.of("POST", "/%2e%2e/orders/1", "bad-path"),
                Arguments.of("POST", "/../orders/1", "bad-path"),
                Arguments.of("POST", "/x/../../orders/1", "bad-path"),
                Arguments.of("POST", "/..;/orders/1", "bad-path"),
                Arguments.of("post", "/orders/1", "bad-method"),
                Arguments.of("Post", "/orders/1", "bad-method"),
                Arguments.of("pOST", "/orders/1", "bad-method"),
                Arguments.of("get", "/orders/1", "bad-method"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("unsafe")
    void anUnsafeSpellingIsRefusedAndNeverForwarded(String method, String target, String type) throws IOException {
        String key = "k-" + UUID.randomUUID();
        double before = metric("tollgate_refused_total{reason=\"" + type + "\"}");

        List<RawHttp.Answer> answers = send(3, "127.0.0.1", method, target, List.of("X-API-Key: " + key));

        for (RawHttp.Answer answer : answers) {
            assertThat(answer.status()).as("status").isEqualTo(400);
            if (type.equals(UNPARSED)) {
                continue; // the HTTP server's own bare 400, before any handler runs
            }
            assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
            assertThat(new JsonObject(answer.body()).getString("type")).isEqualTo(type);
        }
        assertThat(backendHits()).as("the backend served").isZero();
        if (!type.equals(UNPARSED)) {
            assertThat(metric("tollgate_refused_total{reason=\"" + type + "\"}") - before).isEqualTo(3.0);
        }
    }

    @Test
    void aKeyHeaderSentTwiceIsRefusedWhateverTheSpelling() throws IOException {
        double before = metric("tollgate_refused_total{reason=\"ambiguous-client\"}");
        String a = "k-" + UUID.randomUUID();
        String b = "k-" + UUID.randomUUID();
        List<List<String>> shapes = List.of(
                List.of("X-API-Key: " + a, "X-API-Key: " + b),
                List.of("X-API-Key: " + a, "x-api-key: " + b),
                List.of("X-API-Key: " + a, "X-API-KEY: " + a),
                List.of("X-API-Key: " + a, "X-API-Key: "));
        for (List<String> headers : shapes) {
            RawHttp.Answer answer = send(1, "127.0.0.1", "POST", "/orders/1", headers).get(0);
            assertThat(answer.status()).as("%s", headers).isEqualTo(400);
            assertThat(new JsonObject(answer.body()).getString("type")).isEqualTo("ambiguous-client");
        }
        assertThat(backendHits()).isZero();
        assertThat(metric("tollgate_refused_total{reason=\"ambiguous-client\"}") - before).isEqualTo(shapes.size());
    }

    @Test
    void aKeyHeaderInAnyCaseCountsInOneBucket() throws IOException {
        String key = "k-" + UUID.randomUUID();
        List<Integer> statuses = new ArrayList<>();
        for (String name : List.of("X-API-Key", "x-api-key", "X-API-KEY", "x-Api-kEY")) {
            statuses.add(send(1, "127.0.0.1", "POST", "/orders/1", List.of(name + ": " + key)).get(0).status());
        }
        assertThat(statuses).containsExactly(200, 200, 429, 429);
    }

    @Test
    void anEmptyKeyIsAMissingOneCounted() throws IOException {
        double before = metric("tollgate_refused_total{reason=\"missing-key\"}");
        assertThat(send(1, "127.0.0.1", "POST", "/orders/1", List.of("X-API-Key: ")).get(0).status()).isEqualTo(401);
        assertThat(send(1, "127.0.0.1", "POST", "/orders/1", List.of()).get(0).status()).isEqualTo(401);
        assertThat(backendHits()).isZero();
        assertThat(metric("tollgate_refused_total{reason=\"missing-key\"}") - before).isEqualTo(2.0);
    }

    @Test
    void addressHeadersFromAnUntrustedPeerChangeNothing() throws IOException {
        List<List<String>> spoofs = List.of(
                List.of("X-Forwarded-For: 198.51.100.1"),
                List.of("X-Forwarded-For: 198.51.100.2", "X-Forwarded-For: 198.51.100.3"),
                List.of("X-Real-IP: 198.51.100.4", "Forwarded: for=198.51.100.5"),
                List.of("X-Forwarded-For: 127.0.0.9, 198.51.100.6"));
        List<Integer> statuses = new ArrayList<>();
        for (List<String> headers : spoofs) {
            RawHttp.Answer answer = send(1, "127.0.0.5", "GET", "/by-ip/x", headers).get(0);
            statuses.add(answer.status());
            if (answer.status() == 200) {
                JsonObject seen = new JsonObject(answer.body()).getJsonObject("headers");
                assertThat(seen.getString("x-forwarded-for")).as("what the backend reads").isEqualTo("127.0.0.5");
                assertThat(seen.containsKey("x-real-ip")).as("X-Real-IP passed").isFalse();
                assertThat(seen.containsKey("forwarded")).as("Forwarded passed").isFalse();
            }
        }
        assertThat(statuses).as("one bucket: the peer's").containsExactly(200, 200, 429, 429);
    }

    @Test
    void behindATrustedProxyEveryForwardedForLineIsReadFromTheRight() throws IOException {
        // the client wrote the first line; the trusted proxy (127.0.0.9) appended the second with what it saw
        List<Integer> statuses = new ArrayList<>();
        for (String spoof : List.of("6.6.6.1", "6.6.6.2", "6.6.6.3", "6.6.6.4")) {
            RawHttp.Answer answer = send(1, "127.0.0.9", "GET", "/by-ip/y",
                    List.of("X-Forwarded-For: " + spoof, "X-Forwarded-For: 198.51.100.7", "X-Real-IP: 198.51.100.7"))
                    .get(0);
            statuses.add(answer.status());
            if (answer.status() == 200) {
                JsonObject seen = new JsonObject(answer.body()).getJsonObject("headers");
                assertThat(seen.getString("x-forwarded-for")).isEqualTo(spoof + ", 198.51.100.7, 127.0.0.9");
                assertThat(seen.getString("x-real-ip")).as("a trusted proxy's X-Real-IP passes").isEqualTo("198.51.100.7");
            }
        }
        assertThat(statuses).as("one bucket: the address the proxy saw").containsExactly(200, 200, 429, 429);
    }

    /**
     * {@code Connection} lines that name a header the gateway reads or writes: forwarded, each would take that header
     * away behind the check (a counted key, the framing, the address the gateway appends).
     */
    static Stream<Arguments> protectedNames() {
        return Stream.of(
                Arguments.of("POST", "/orders/1", "Connection: X-API-Key"),
                Arguments.of("POST", "/orders/1", "Connection: keep-alive, x-api-key"),
                Arguments.of("POST", "/orders/1", "Connection:X-API-KEY ,close"),
                Arguments.of("GET", "/free/1", "Connection: X-API-Key"),
                Arguments.of("GET", "/by-header/1", "Connection: x-tenant"),
                Arguments.of("GET", "/free/1", "Connection: X-Tenant"),
                Arguments.of("POST", "/orders/1", "Connection: Content-Length"),
                Arguments.of("POST", "/orders/1", "Connection: Transfer-Encoding"),
                Arguments.of("POST", "/orders/1", "Connection: Host"),
                Arguments.of("GET", "/by-ip/1", "Connection: X-Forwarded-For"),
                Arguments.of("GET", "/free/1", "Connection: X-Forwarded-Host"),
                Arguments.of("GET", "/free/1", "Connection: X-Forwarded-Proto"),
                Arguments.of("POST", "/orders/1", "Connection: RateLimit-Policy"),
                Arguments.of("POST", "/orders/1", "Connection: RateLimit"),
                Arguments.of("POST", "/orders/1", "Connection: RateLimit-Remaining"),
                Arguments.of("GET", "/free/1", "Connection: Tollgate-Warmup"),
                Arguments.of("GET", "/free/1", "Connection: tollgate-anything"));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("protectedNames")
    void aConnectionHeaderNamingWhatTheGatewayReliesOnIsRefused(String method, String target, String connection)
            throws IOException {
        String key = "k-" + UUID.randomUUID();
        double before = metric("tollgate_refused_total{reason=\"bad-connection\"}");

        RawHttp.Answer answer = send(1, "127.0.0.1", method, target,
                List.of("X-API-Key: " + key, "X-Tenant: t-" + key, connection)).get(0);

        assertThat(answer.status()).as("status").isEqualTo(400);
        assertThat(answer.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(new JsonObject(answer.body()).getString("type")).isEqualTo("bad-connection");
        assertThat(backendHits()).as("the backend served").isZero();
        assertThat(metric("tollgate_refused_total{reason=\"bad-connection\"}") - before).isEqualTo(1.0);
    }

    @Test
    void aRefusedConnectionHeaderCostsTheKeyNothing() throws IOException {
        String key = "k-" + UUID.randomUUID();
        List<Integer> statuses = new ArrayList<>();
        statuses.add(send(1, "127.0.0.1", "POST", "/orders/1", List.of("X-API-Key: " + key, "Connection: X-API-Key"))
                .get(0).status());
        for (RawHttp.Answer answer : send(BURST + 1, "127.0.0.1", "POST", "/orders/1", List.of("X-API-Key: " + key))) {
            statuses.add(answer.status());
            if (answer.status() == 200) {
                JsonObject seen = new JsonObject(answer.body()).getJsonObject("headers");
                assertThat(seen.getString("x-api-key")).as("the key the backend reads").isEqualTo(key);
            }
        }
        assertThat(statuses).containsExactly(400, 200, 200, 429);
    }

    @Test
    void aConnectionHeaderNamingOtherHeadersStillPassesWithoutThem() throws IOException {
        // TE with a "TE" connection option is what RFC 9110 §10.1.4 asks of a client that sends TE
        RawHttp.Answer answer = send(1, "127.0.0.1", "GET", "/free/1", List.of("Connection: keep-alive, X-Hop-Only, TE",
                "X-Hop-Only: for the next hop", "TE: trailers", "X-End-To-End: for the backend")).get(0);

        assertThat(answer.status()).isEqualTo(200);
        JsonObject seen = new JsonObject(answer.body()).getJsonObject("headers");
        assertThat(seen.containsKey("x-hop-only")).as("a name Connection lists stays behind").isFalse();
        assertThat(seen.getString("x-end-to-end")).isEqualTo("for the backend");
    }

    @Test
    void aConnectionNamingContentLengthIsRefusedWithoutALinePerChunk() throws IOException {
        int length = 300 * 1024;
        double before = metric("tollgate_refused_total{reason=\"bad-connection\"}");
        try (ErrorLines errors = ErrorLines.collect()) {
            RawHttp.Answer answer = RawHttp.send("127.0.0.1", port(), "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "X-API-Key: k-" + UUID.randomUUID() + "\r\nContent-Length: " + length
                    + "\r\nConnection: Content-Length\r\n\r\n", new byte[length], false).answer();

            assertThat(answer.status()).isEqualTo(400);
            assertThat(new JsonObject(answer.body()).getString("type")).isEqualTo("bad-connection");
            assertThat(errors.lines()).as("ERROR lines").isEmpty();
        }
        assertThat(backendHits()).isZero();
        assertThat(metric("tollgate_refused_total{reason=\"bad-connection\"}") - before).isEqualTo(1.0);
    }

    @Test
    void anAnswerWhoseConnectionNamesItsContentLengthKeepsItsFraming() throws IOException {
        int length = 300 * 1024;
        try (ErrorLines errors = ErrorLines.collect()) {
            RawHttp.Answer answer = RawHttp.exchange("127.0.0.1", port(), "GET", "/framing/" + length, List.of());

            assertThat(errors.lines()).as("ERROR lines").isEmpty();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.header("Content-Length")).isEqualTo(Integer.toString(length));
            assertThat(answer.body()).hasSize(length);
        }
    }

    /**
     * Requests whose body length or authority a backend could read otherwise than the gateway. The HTTP server (Netty)
     * refuses some itself with its bare 400, before the gateway reads them.
     */
    static Stream<Arguments> badFraming() {
        String post = "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: k-framing-" + RUN + "\r\n";
        String chunks = "5\r\nhello\r\n0\r\n\r\n";
        String smuggled = "GET /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: k-smuggled-" + RUN + "\r\n\r\n";
        return Stream.of(
                Arguments.of("xchunked and a Content-Length", post + "Transfer-Encoding: xchunked\r\nContent-Length: 5"
                        + "\r\n\r\nhello", 400, "bad-framing"),
                Arguments.of("chunked and a Content-Length", post + "Transfer-Encoding: chunked\r\nContent-Length: 5"
                        + "\r\n\r\n" + chunks, 400, UNPARSED),
                Arguments.of("xchunked alone", post + "Transfer-Encoding: xchunked\r\n\r\n" + smuggled, 400,
                        "bad-framing"),
                Arguments.of("chunked, then another coding", post + "Transfer-Encoding: chunked, gzip\r\n\r\n" + chunks,
                        400, UNPARSED),
                Arguments.of("chunked twice", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + chunks, 400, "bad-framing"),
                Arguments.of("chunked in HTTP/1.0", post.replace("HTTP/1.1", "HTTP/1.0")
                        + "Transfer-Encoding: chunked\r\n\r\n" + chunks, 400, UNPARSED),
                Arguments.of("gzip, then chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunks, 501,
                        "unknown-transfer-coding"),
                Arguments.of("xchunked, then chunked", post + "Transfer-Encoding: xchunked\r\nTransfer-Encoding: chunked"
                        + "\r\n\r\n" + chunks, 501, "unknown-transfer-coding"),
                Arguments.of("two Host headers", "GET /free/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.com\r\n\r\n",
                        400, "ambiguous-host"),
                Arguments.of("two Host headers alike", "GET /free/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: 127.0.0.1"
                        + "\r\n\r\n", 400, "ambiguous-host"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFraming")
    void aRequestFramedTwoWaysIsRefusedAndItsConnectionClosed(String shape, String request, int status, String type)
            throws IOException {
        double before = metric("tollgate_refused_total{reason=\"" + type + "\"}");

        RawHttp.Closing answered = RawHttp.send("127.0.0.1", port(), request, new byte[0], true);

        assertThat(answered.answer().status()).as("status").isEqualTo(status);
        assertThat(answered.closed()).as("the connection closed after the answer").isTrue();
        assertThat(backendHits()).as("the backend served").isZero();
        if (!type.equals(UNPARSED)) {
            assertThat(new JsonObject(answered.answer().body()).getString("type")).isEqualTo(type);
            assertThat(metric("tollgate_refused_total{reason=\"" + type + "\"}") - before).isEqualTo(1.0);
        }
    }

    /** smuggler's Transfer-Encoding gadgets, each in its CL.TE and its TE.CL probe. */
    static Stream<SmugglingCorpus.Shape> smugglingGadgets() {
        return SmugglingCorpus.gadgets().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smugglingGadgets")
    void aTransferEncodingGadgetIsRefusedOrFramedByItsContentLength(SmugglingCorpus.Shape shape) throws IOException {
        double before = shape.type() == null ? 0 : metric("tollgate_refused_total{reason=\"" + shape.type() + "\"}");
        probe(shape, true);
        probe(shape, false);
        if (shape.type() != null) {
            assertThat(metric("tollgate_refused_total{reason=\"" + shape.type() + "\"}") - before)
                    .as("%s, counted", shape).isEqualTo(2.0);
        }
    }

    @Test
    void smugglersByteMutationsAreEachRefusedOrFramedByTheirContentLength() throws IOException {
        for (SmugglingCorpus.Shape shape : SmugglingCorpus.byteMutations()) {
            probe(shape, true);
            probe(shape, false);
        }
    }

    static Stream<SmugglingCorpus.Shape> smugglingRequests() {
        return SmugglingCorpus.requests().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smugglingRequests")
    void aRequestFramedOrAddressedAmbiguouslyIsRefusedOrFramedByItsContentLength(SmugglingCorpus.Shape shape)
            throws IOException {
        String key = "k-" + UUID.randomUUID();
        String request = shape.request().replace("{key}", key);
        int length = declaredLength(request);
        double before = shape.type() == null ? 0 : metric("tollgate_refused_total{reason=\"" + shape.type() + "\"}");
        check(shape, RawHttp.exchangeAll("127.0.0.1", port(), (request + end(key)).getBytes(ISO_8859_1)), length,
                "the request");
        if (shape.type() != null) {
            assertThat(metric("tollgate_refused_total{reason=\"" + shape.type() + "\"}") - before).as("counted")
                    .isEqualTo(1.0);
        }
    }

    /**
     * smuggler's probes of {@code shape}'s gadget beside a Content-Length. CL.TE: the length covers a chunked body's
     * last chunk and {@link SmugglingCorpus#SMUGGLED} after it, which a reader of the chunks would take as a second
     * request. TE.CL: the length covers a chunk's size line only, and the chunk is the smuggled request, which a reader
     * of the length would take as the next request. Either is followed by a last request that closes the connection.
     */
    private static void probe(SmugglingCorpus.Shape shape, boolean clTe) throws IOException {
        String key = "k-" + UUID.randomUUID();
        String smuggled = SmugglingCorpus.SMUGGLED.replace("{key}", key);
        String body = clTe
                ? "0\r\n\r\n" + smuggled
                : Integer.toHexString(smuggled.length()) + "\r\n" + smuggled + "\r\n0\r\n\r\n";
        int length = clTe ? body.length() : Integer.toHexString(smuggled.length()).length() + 2;
        String request = "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + key + "\r\nX-Note: x\r\n"
                + shape.gadget() + "\r\nContent-Length: " + length + "\r\n\r\n" + body;
        check(shape, RawHttp.exchangeAll("127.0.0.1", port(), (request + end(key)).getBytes(ISO_8859_1)), length,
                clTe ? "CL.TE" : "TE.CL");
    }

    /** A last request on the connection, which asks the gateway to close it after the answer. */
    private static String end(String key) {
        return "POST /orders/end HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + key + "\r\nContent-Length: 0\r\n"
                + "Connection: close\r\n\r\n";
    }

    private static int declaredLength(String request) {
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("Content-Length: 0*(\\d{1,9})\r?\n")
                .matcher(request);
        return length.find() ? Integer.parseInt(length.group(1)) : -1;
    }

    /**
     * What every shape must come to: refused (a 400 or 501, nothing forwarded), or its first request framed by its
     * Content-Length (the backend received exactly {@code length} bytes); and whatever the backend received, the
     * client got an answer for, checked by the rule (no second request reaches the backend uncounted).
     */
    private static void check(SmugglingCorpus.Shape shape, List<RawHttp.Answer> answers, int length, String probe) {
        String what = shape + " (" + probe + ")";
        long hits = backendHits();
        long forwarded = hits - hitsSeen;
        hitsSeen = hits;
        assertThat(answers).as("%s: answered", what).isNotEmpty();
        List<RawHttp.Answer> passed = answers.stream().filter(a -> a.status() / 100 == 2).toList();
        assertThat(forwarded).as("%s: every request the backend received was answered", what).isEqualTo(passed.size());
        for (RawHttp.Answer answer : passed) {
            assertThat(answer.header("RateLimit-Policy")).as("%s: each forwarded request was checked", what)
                    .isNotNull();
        }
        RawHttp.Answer first = answers.get(0);
        boolean refused = first.status() == 400 || first.status() == 501;
        SmugglingCorpus.Outcome outcome = shape.outcome() != null
                ? shape.outcome()
                : refused ? SmugglingCorpus.Outcome.REFUSED : SmugglingCorpus.Outcome.CONTENT_LENGTH;
        if (outcome == SmugglingCorpus.Outcome.REFUSED) {
            // what came after a refusal that keeps the connection (a missing Host) is the client's next request
            assertThat(first.status()).as("%s: refused", what).isIn(400, 501);
            if (shape.type() != null) {
                assertThat(new JsonObject(first.body()).getString("type")).as(what).isEqualTo(shape.type());
            }
        } else {
            assertThat(first.status()).as("%s: forwarded", what).isEqualTo(200);
            assertThat(new JsonObject(first.body()).getLong("bytes")).as("%s: framed by Content-Length", what)
                    .isEqualTo(length);
        }
    }

    private static List<RawHttp.Answer> send(int times, String from, String method, String target, List<String> headers)
            throws IOException {
        List<RawHttp.Answer> answers = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            answers.add(RawHttp.exchange(from, port(), method, target, headers));
        }
        return answers;
    }
}
