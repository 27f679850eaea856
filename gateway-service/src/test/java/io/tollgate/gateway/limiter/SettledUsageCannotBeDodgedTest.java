package io.tollgate.gateway.limiter;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.CompressedAnswers;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;

/**
 * Settled usage cannot be dodged (DESIGN.md), through HTTP on a real Redis and a real backend that compresses:
 * a gzip or deflate answer, whole or streamed, is charged the usage inside it while the client gets the bytes as
 * the backend sent them. A client that leaves early (an HTTP/1.1 connection closed, an HTTP/2 stream reset) or keeps a
 * flow-control window of 300 bytes shut is charged the usage its answer ends with, SSE or JSON: the gateway reads the
 * rest for it. An answer whose usage never comes (an upstream that falls silent after its client left, a rest longer
 * than its bound, a missing usage, a coding the gateway does not decode, a zip bomb read no further than its bound)
 * is charged {@code settle.otherwise}.
 * <p>
 * The rules refill one token an hour, so what a bucket holds during a test is what was spent.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class SettledUsageCannotBeDodgedTest {

    private static final Duration SETTLED = Duration.ofSeconds(10);
    private static final long BURST = 100_000;
    private static final long COST = 500;
    private static final long OTHERWISE = 4096;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private String apiKey;

    @BeforeEach
    void freshClientAndRule() {
        apiKey = "dodge-" + UUID.randomUUID();
        resetBackend();
        install("[" + rule("llm.tokens", "/**", "api_key", 1, "1h", BURST, "\"cost\":" + COST
                + ",\"unit\":\"tokens\",\"settle\":{\"from\":\"json:/usage/total_tokens\",\"otherwise\":" + OTHERWISE
                + "}") + "]");
    }

    @Test
    void aGzipAnswerIsChargedTheUsageInsideAndReachesTheClientAsTheBackendSentIt() throws Exception {
        HttpResponse<byte[]> answer = get("/coded/gzip/json/40000", "gzip");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("Content-Encoding")).hasValue("gzip");
        byte[] sent = CompressedAnswers.encode("gzip", CompressedAnswers.json("40000").getBytes(UTF_8));
        assertThat(answer.body()).as("the bytes the backend sent").isEqualTo(sent);
        assertThat(gunzip(answer.body())).isEqualTo(CompressedAnswers.json("40000"));
        assertThat(answer.headers().firstValue("RateLimit-Remaining")).hasValue(Long.toString(BURST - COST));
        awaitRemaining(BURST - 40_000);
    }

    @Test
    void aDeflateAnswerIsChargedTheUsageInside() throws Exception {
        HttpResponse<byte[]> answer = get("/coded/deflate/json/3000", "deflate");

        assertThat(answer.headers().firstValue("Content-Encoding")).hasValue("deflate");
        assertThat(new String(new InflaterInputStream(new ByteArrayInputStream(answer.body())).readAllBytes(), UTF_8))
                .isEqualTo(CompressedAnswers.json("3000"));
        awaitRemaining(BURST - 3000);
    }

    @Test
    void aGzipEventStreamIsChargedTheUsageOfItsLastEvent() throws Exception {
        HttpResponse<byte[]> answer = get("/coded/gzip/sse/700", "gzip, deflate");

        assertThat(answer.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gunzip(answer.body())).isEqualTo(CompressedAnswers.sse("700")).endsWith("data: [DONE]\n\n");
        awaitRemaining(BURST - 700);
        assertThat(metric("tollgate_settlements_total{outcome=\"settled\",rule=\"llm.tokens\"}")).isPositive();
    }

    @Test
    void aStreamTheClientAbandonsBeforeItsUsageIsChargedOtherwise() throws Exception {
        abandonAStreamThatNeverSendsItsUsage();
        awaitRemaining(BURST - OTHERWISE);
    }

    @Test
    void aClientThatLeavesKeepsItsReservationSpentWhenOtherwiseIsLower() throws Exception {
        install("[" + rule("llm.tokens", "/**", "api_key", 1, "1h", BURST, "\"cost\":" + COST
                + ",\"settle\":{\"from\":\"json:/usage/total_tokens\",\"otherwise\":0}") + "]");

        abandonAStreamThatNeverSendsItsUsage();

        awaitRemaining(BURST - COST);
    }

    /** A client reads the first events of a stream whose usage never comes (its upstream falls silent), then leaves. */
    private void abandonAStreamThatNeverSendsItsUsage() throws Exception {
        double unfinished = metric("tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}");
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
            socket.getOutputStream().write(("GET /coded/gzip/held/5 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: "
                    + apiKey + "\r\nAccept-Encoding: gzip\r\n\r\n").getBytes(US_ASCII));
            InputStream in = socket.getInputStream();
            RawHttp.Answer head = RawHttp.read(in);
            assertThat(head.status()).isEqualTo(200);
            assertThat(in.read()).as("the first events came").isNotNegative();
        } // the client goes away mid-stream, before the usage
        await().atMost(SETTLED).until(() -> metric(
                "tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}") > unfinished);
    }

    @Test
    void anAnswerWithoutItsUsageIsChargedOtherwise() throws Exception {
        assertThat(get("/usage/header/12", "gzip").statusCode()).isEqualTo(200); // a JSON body without usage
        awaitRemaining(BURST - OTHERWISE);
    }

    @Test
    void twoRulesOnOneAnswerAreChargedEachOnItsOwnGround() throws Exception {
        install("[" + rule("llm.tokens", "/**", "api_key", 1, "1h", BURST, "\"cost\":" + COST
                + ",\"settle\":{\"from\":\"json:/usage/total_tokens\",\"otherwise\":" + OTHERWISE + "}") + ","
                + rule("llm.header", "/**", "api_key", 1, "1h", BURST, "\"cost\":" + COST
                        + ",\"settle\":{\"from\":\"header:X-Usage-Tokens\"}")
                + "]");

        assertThat(get("/usage/header/12", "gzip").statusCode()).isEqualTo(200); // the usage in a header only

        await().atMost(SETTLED).untilAsserted(() -> {
            assertThat(remaining("llm.tokens")).as("no usage in the body: otherwise").isEqualTo(BURST - OTHERWISE);
            assertThat(remaining("llm.header")).as("the header's usage").isEqualTo(BURST - 12);
        });
    }

    @Test
    void aCodingTheGatewayDoesNotDecodeIsNeitherAskedForNorFreeOfCharge() throws Exception {
        HttpResponse<byte[]> narrowed = get("/coded/gzip/json/10", "br, gzip;q=0.5, zstd");
        assertThat(narrowed.headers().firstValue("X-Seen-Accept-Encoding")).hasValue("gzip;q=0.5");
        awaitRemaining(BURST - 10);

        HttpResponse<byte[]> brOnly = get("/coded/br/json/10", "br");
        assertThat(brOnly.headers().firstValue("X-Seen-Accept-Encoding")).hasValue("identity");
        assertThat(brOnly.headers().firstValue("Content-Encoding")).as("relayed as the backend sent it")
                .hasValue("br");
        awaitRemaining(BURST - 10 - OTHERWISE);
    }

    @Test
    void aZipBombIsReadNoFurtherThanTheBoundAndChargedOtherwise() throws Exception {
        byte[] bomb = CompressedAnswers.bomb(1024); // 1 GiB of zeros, and the usage after them
        double invalid = metric("tollgate_settlements_total{outcome=\"invalid\",rule=\"llm.tokens\"}");

        HttpResponse<byte[]> answer = get("/coded/gzip/bomb/1024", "gzip");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).as("relayed whole, as sent").isEqualTo(bomb);
        await().atMost(SETTLED).until(() -> metric(
                "tollgate_settlements_total{outcome=\"invalid\",rule=\"llm.tokens\"}") > invalid);
        awaitRemaining(BURST - OTHERWISE);
    }

    @Test
    void anHttp1ClientThatReadsTheFirstEventAndClosesIsChargedTheUsageTheStreamEndsWith() throws Exception {
        readTheStartAndClose("/long/sse/40/75000"); // 4 MB of events before the usage: unread when the client goes
        awaitRemaining(BURST - 40);
    }

    @Test
    void anHttp1ClientThatClosesMidJsonIsChargedTheUsageTheAnswerEndsWith() throws Exception {
        readTheStartAndClose("/long/json/41/4000000");
        awaitRemaining(BURST - 41);
    }

    @Test
    void anHttp1ClientThatLeavesBeforeTheHeadIsChargedTheUsageOfTheAnswerThatCameAfter() throws Exception {
        long hits = backendHits();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
            socket.getOutputStream().write(("GET /long/late/3000/300 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: "
                    + apiKey + "\r\n\r\n").getBytes(US_ASCII));
            await().atMost(SETTLED).pollInterval(Duration.ofMillis(5)).until(() -> backendHits() > hits);
        } // the client leaves while the backend works on its answer (it comes whole 300 ms after the request)
        awaitRemaining(BURST - 3000);
    }

    @Test
    void anAnswerLongerAfterItsClientLeftThanTheBoundIsChargedOtherwise() throws Exception {
        double unfinished = metric("tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}");

        readTheStartAndClose("/long/sse/40/300000"); // 16 MB: more than tollgate.settle.rest-max-size (8M here)

        await().atMost(SETTLED).until(() -> metric(
                "tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}") > unfinished);
        awaitRemaining(BURST - OTHERWISE);
    }

    @Test
    void aRestSlowerAfterItsClientLeftThanTheBoundIsChargedOtherwise() throws Exception {
        double unfinished = metric("tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}");

        // an event every 100 ms, the usage after a minute: tollgate.settle.rest-timeout (5s here) ends the reading
        readTheStartAndClose("/long/trickle/40/600");

        await().atMost(SETTLED).until(() -> metric(
                "tollgate_settlements_total{outcome=\"unfinished\",rule=\"llm.tokens\"}") > unfinished);
        awaitRemaining(BURST - OTHERWISE);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"/long/sse/39002/40, 39002, 'data: '", "/long/json/39003/4000, 39003, '{'"})
    void anH2ClientWithAWindowOf300ThatResetsBeforeTheUsageIsChargedIt(String path, long usage, String start)
            throws Exception {
        try (WindowOf300 client = new WindowOf300()) {
            assertThat(client.firstPiece(path)).startsWith(start);
            client.reset();
        }
        awaitRemaining(BURST - usage);
    }

    @Test
    void anH2ClientThatKeepsAWindowOf300AndReadsNoMoreIsLetGoAndChargedTheUsage() throws Exception {
        try (WindowOf300 client = new WindowOf300()) {
            assertThat(client.firstPiece("/long/sse/777/40")).startsWith("data: ");
            // tollgate.settle.client-stall (1s here) after the client last took anything, the gateway resets its
            // stream and reads the rest of the answer itself
            assertThat(client.resetByTheGateway()).isInstanceOf(StreamResetException.class);
        }
        awaitRemaining(BURST - 777);
    }

    private HttpResponse<byte[]> get(String path, String acceptEncoding) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .header("X-API-Key", apiKey)
                .header("Accept-Encoding", acceptEncoding)
                .timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /**
     * An HTTP/1.1 client with a small receive buffer (the gateway can send it little ahead of what it reads) reads
     * {@code path}'s head and the first bytes of its body, then closes the connection.
     */
    private void readTheStartAndClose(String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + apiKey
                    + "\r\n\r\n").getBytes(US_ASCII));
            InputStream in = socket.getInputStream();
            assertThat(RawHttp.read(in).status()).isEqualTo(200);
            assertThat(in.readNBytes(64)).as("the start of the body came").hasSize(64);
        }
    }

    /**
     * One HTTP/2 stream of the gateway with SETTINGS_INITIAL_WINDOW_SIZE 300: the gateway may send only 300 bytes
     * of the answer ahead of what the client has taken.
     */
    private final class WindowOf300 implements AutoCloseable {

        private final Vertx vertx = Vertx.vertx();
        private final io.vertx.core.http.HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false)
                .setInitialSettings(new Http2Settings().setInitialWindowSize(300)));
        private final CompletableFuture<Throwable> reset = new CompletableFuture<>();
        private HttpClientRequest request;

        /** GETs {@code path} and takes the first piece of its body only; the rest stays unread. */
        String firstPiece(String path) throws Exception {
            CompletableFuture<Buffer> first = new CompletableFuture<>();
            request = client.request(new RequestOptions().setHost("127.0.0.1").setPort(port()).setURI(path)
                    .addHeader("X-API-Key", apiKey))
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            request.send().onSuccess(response -> {
                // set in the turn the head arrives, before any of the body: one piece is taken, no more
                response.pause();
                response.exceptionHandler(reset::complete);
                response.handler(first::complete);
                response.fetch(1);
            }).onFailure(first::completeExceptionally);
            return first.get(10, TimeUnit.SECONDS).toString(UTF_8);
        }

        /** RST_STREAM (CANCEL), the rest of the answer unread. */
        void reset() {
            request.reset();
        }

        /** Waits for the gateway to reset the stream, taking nothing meanwhile. */
        Throwable resetByTheGateway() throws Exception {
            return reset.get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws Exception {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static String gunzip(byte[] body) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }

    private void awaitRemaining(long expected) {
        await().atMost(SETTLED).untilAsserted(() -> assertThat(remaining("llm.tokens")).isEqualTo(expected));
    }

    private long remaining(String ruleId) {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/x").jsonPath()
                .getLong("rules.find { it.id == '" + ruleId + "' }.remaining");
    }
}
