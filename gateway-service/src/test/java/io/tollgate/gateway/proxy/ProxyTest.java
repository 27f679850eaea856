package io.tollgate.gateway.proxy;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.backendCount;
import static io.tollgate.gateway.support.GatewayControl.brokenDownloads;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;

/** The proxy with no rule matching: methods, headers, bodies both ways, errors (memory store, no Redis). */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store", value = "memory"))
class ProxyTest {

    private static final long FIFTY_MB = 50L * 1024 * 1024;
    /** The tests' client where HTTP/1.1 is meant (the JDK's default would upgrade to HTTP/2). */
    private static final HttpClient HTTP_1_1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void everyMethodReachesTheBackendWithItsPathQueryAndBody() {
        for (String method : new String[]{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
            JsonPath echo = given().urlEncodingEnabled(false).body(method.equals("GET") ? "" : "payload-" + method)
                    .request(method, "/things/42?x=1&y=%C3%A9")
                    .then()
                    .statusCode(200)
                    .extract()
                    .jsonPath();
            assertThat(echo.getString("method")).isEqualTo(method);
            assertThat(echo.getString("uri")).isEqualTo("/things/42?x=1&y=%C3%A9");
            if (!method.equals("GET")) {
                assertThat(echo.getLong("bytes")).isEqualTo(("payload-" + method).length());
            }
        }
    }

    @Test
    void forwardedHeadersAreAddedAndHopByHopHeadersDropped() {
        Response response = given().header("X-Forwarded-For", "203.0.113.9")
                .header("Connection", "keep-alive, X-Drop-Me")
                .header("X-Drop-Me", "secret")
                .header("Keep-Alive", "timeout=5")
                .header("X-Custom", "kept")
                .get("/headers");
        response.then().statusCode(200).header("X-Backend", "test");
        assertThat(response.getHeader("X-Secret-Hop")).as("hop-by-hop named by the backend's Connection").isNull();
        JsonPath echo = response.jsonPath();
        // no proxy is trusted here: what the client claimed is dropped, the backend reads the peer alone
        assertThat(echo.getString("headers.'x-forwarded-for'")).isEqualTo("127.0.0.1");
        assertThat(echo.getString("headers.'x-forwarded-proto'")).isEqualTo("http");
        assertThat(echo.getString("headers.'x-forwarded-host'")).isEqualTo("localhost:" + port());
        assertThat(echo.getString("headers.'x-custom'")).isEqualTo("kept");
        assertThat(echo.getString("headers.'x-drop-me'")).isNull();
        assertThat(echo.getString("headers.'keep-alive'")).isNull();
    }

    @Test
    void unreachableUpstreamIs502ProblemJson() {
        given().get("/dead/anything")
                .then()
                .statusCode(502)
                .contentType("application/problem+json")
                .body("status", org.hamcrest.Matchers.is(502))
                .body("type", org.hamcrest.Matchers.is("bad-gateway"));
    }

    @Test
    void silentUpstreamIs504ProblemJson() {
        long start = System.nanoTime();
        given().get("/slow")
                .then()
                .statusCode(504)
                .contentType("application/problem+json")
                .body("type", org.hamcrest.Matchers.is("gateway-timeout"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void fiftyMegabytesStreamUpAndDown() throws Exception {
        HttpResponse<String> up = HTTP_1_1.send(HttpRequest.newBuilder(gateway("/upload"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(FIFTY_MB)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        JsonPath echo = JsonPath.from(up.body());
        assertThat(echo.getLong("bytes")).isEqualTo(FIFTY_MB);
        assertThat(echo.getLong("crc")).isEqualTo(PatternStream.crcOf(FIFTY_MB));

        // with a Content-Length too: no body-size limit of the gateway's own (that is the backend's call)
        HttpResponse<String> sized = HTTP_1_1.send(HttpRequest.newBuilder(gateway("/upload"))
                .POST(HttpRequest.BodyPublishers.fromPublisher(
                        HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(FIFTY_MB)), FIFTY_MB))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(sized.statusCode()).as(sized.body()).isEqualTo(200);
        assertThat(JsonPath.from(sized.body()).getLong("bytes")).isEqualTo(FIFTY_MB);

        HttpResponse<InputStream> down = HTTP_1_1.send(HttpRequest.newBuilder(gateway("/download/" + FIFTY_MB)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(down.statusCode()).isEqualTo(200);
        long total = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = down.body()) {
            for (int n; (n = in.read(buf)) > 0;) {
                total += n;
            }
        }
        assertThat(total).isEqualTo(FIFTY_MB);
    }

    @Test
    void anUpstreamAnswerThatBreaksOffBreaksTheClientsAnswerToo() {
        // chunked, and with a Content-Length of 1 MB: never a short body delivered as if whole, never a hang
        for (String path : new String[]{"/break/65536", "/break/65536?length=1048576"}) {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                HttpResponse<InputStream> answer = HTTP_1_1.send(HttpRequest.newBuilder(gateway(path)).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                assertThat(answer.statusCode()).isEqualTo(200);
                try (InputStream body = answer.body()) {
                    assertThatThrownBy(body::readAllBytes).as(path).isInstanceOf(IOException.class);
                }
            }, path);
        }
    }

    @Test
    void aClientThatGoesAwayMidUploadLeavesTheBackendABrokenRequestNotAShortOne() throws Exception {
        // chunked, and with a Content-Length of 1 MB: 1 KB is sent, then the client is gone
        for (String framing : new String[]{"Transfer-Encoding: chunked", "Content-Length: 1048576"}) {
            resetBackend();
            try (Socket socket = new Socket("127.0.0.1", port())) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST /upload HTTP/1.1\r\nHost: test\r\n" + framing + "\r\n\r\n").getBytes(US_ASCII));
                boolean chunked = framing.startsWith("Transfer");
                out.write((chunked ? "400\r\n" : "").getBytes(US_ASCII));
                out.write(new byte[1024]);
                out.write((chunked ? "\r\n" : "").getBytes(US_ASCII));
                out.flush();
                await().atMost(Duration.ofSeconds(10)).until(() -> backendCount("uploadsStarted") == 1);
            }
            await().alias(framing).atMost(Duration.ofSeconds(10)).until(() -> backendCount("uploadsBroken") == 1);
        }
    }

    @Test
    void aClientThatGoesAwayMidDownloadStopsTheBackendsStream() throws Exception {
        resetBackend();
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.getOutputStream().write(("GET /download/" + 20 * FIFTY_MB + " HTTP/1.1\r\nHost: test\r\n\r\n")
                    .getBytes(US_ASCII));
            assertThat(socket.getInputStream().readNBytes(64 * 1024)).hasSize(64 * 1024); // the stream flows
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> backendCount("downloadsBroken") == 1);
    }

    @Test
    void anUpstreamThatFallsSilentMidAnswerIsCutAfterTheUpstreamTimeout() {
        resetBackend();
        // upstream-timeout is 700 ms here: Vert.x times only the wait for the head, the gateway the body too
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            HttpResponse<InputStream> answer = HTTP_1_1.send(HttpRequest.newBuilder(gateway("/stall/65536")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(answer.statusCode()).isEqualTo(200);
            try (InputStream body = answer.body()) {
                assertThatThrownBy(body::readAllBytes).isInstanceOf(IOException.class);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> backendCount("downloadsBroken") == 1);
    }

    @Test
    void aSlowClientIsNotTakenForASilentUpstream() throws Exception {
        resetBackend();
        String uri = "/download/" + FIFTY_MB + "?reader=slow"; // its own URI: other tests' late breaks do not count
        HttpResponse<InputStream> down = HTTP_1_1.send(HttpRequest.newBuilder(gateway(uri)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = down.body()) {
            long total = in.readNBytes(64 * 1024).length;
            // the client stops reading for three upstream timeouts: the gateway holds the upstream back
            // (back-pressure), which is not the upstream falling silent
            await().during(Duration.ofMillis(2100)).atMost(Duration.ofSeconds(5))
                    .until(() -> !brokenDownloads().contains(uri));
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0;) {
                total += n;
            }
            assertThat(total).isEqualTo(FIFTY_MB);
        }
    }

    @Test
    void http2ClientsUpgradingFromCleartextAreProxiedWithTheirBodies() throws Exception {
        // the JDK client's default: HTTP/2, reached by an h2c upgrade on its first request
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> first = client.send(HttpRequest.newBuilder(gateway("/h2/first")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
        long size = 3L * 1024 * 1024;
        for (HttpRequest.BodyPublisher body : new HttpRequest.BodyPublisher[]{
                HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(size)), // no length: streamed
                HttpRequest.BodyPublishers.fromPublisher(
                        HttpRequest.BodyPublishers.ofInputStream(() -> new PatternStream(size)), size)}) {
            HttpResponse<String> up = client.send(HttpRequest.newBuilder(gateway("/h2/upload")).POST(body).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
            assertThat(up.version()).isEqualTo(HttpClient.Version.HTTP_2);
            JsonPath echo = JsonPath.from(up.body());
            assertThat(echo.getLong("bytes")).isEqualTo(size);
            assertThat(echo.getLong("crc")).isEqualTo(PatternStream.crcOf(size));
        }
    }

    @Test
    void anUploadThatExpects100ContinueIsAskedForItsBodyAtOnce() throws Exception {
        // curl sends Expect for bodies over 1 MB and waits a second for the 100 before sending anyway
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("POST /upload HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"
                    .getBytes(US_ASCII));
            out.flush();
            assertThat(RawHttp.read(socket.getInputStream()).status()).isEqualTo(100);
            out.write("hello".getBytes(US_ASCII));
            out.flush();
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream());
            assertThat(answer.status()).isEqualTo(200);
            JsonPath echo = JsonPath.from(answer.body());
            assertThat(echo.getLong("bytes")).isEqualTo(5);
            assertThat(echo.getString("headers.expect")).as("answered by the gateway, not forwarded").isNull();
        }
    }

    private URI gateway(String path) {
        return URI.create("http://127.0.0.1:" + port() + path);
    }

    /** A generated body: no 50 MB array on the test's side either. */
    static final class PatternStream extends InputStream {

        private long left;

        PatternStream(long size) {
            this.left = size;
        }

        @Override
        public int read() {
            return left-- > 0 ? (int) (left & 0x7F) : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            for (int i = 0; i < n; i++) {
                b[off + i] = (byte) (--left & 0x7F);
            }
            return n;
        }

        static long crcOf(long size) {
            CRC32 crc = new CRC32();
            byte[] buf = new byte[64 * 1024];
            PatternStream s = new PatternStream(size);
            for (int n; (n = s.read(buf, 0, buf.length)) > 0;) {
                crc.update(buf, 0, n);
            }
            return crc.getValue();
        }
    }
}
