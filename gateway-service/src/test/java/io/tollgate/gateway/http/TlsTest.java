package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.DocumentedCurl;
import io.tollgate.gateway.support.TlsResource;
import io.vertx.core.json.JsonObject;

/**
 * TLS on the public port, configured as docs/protocols.md says ({@link TlsResource} runs its keytool commands and
 * applies its properties): an HTTPS client, HTTP/1.1 and HTTP/2 by ALPN, trusting only the certificate the test made,
 * sees the RateLimit headers and the 429 exactly as over plain HTTP, and the backend learns the request came over
 * https.
 */
@QuarkusTest
@WithTestResource(TlsResource.class)
class TlsTest {

    private static boolean installed;
    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "tls-" + UUID.randomUUID();
        resetBackend();
        if (!installed) {
            install("[" + rule("tls.per-key", "/limited/**", "api_key", 2, "1m", 2, "") + "]");
            installed = true;
        }
    }

    @Test
    void http11OverTlsIsLimitedAsPlainHttpIs() throws Exception {
        assertLimitedTwiceThenRejected(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void http2ByAlpnIsLimitedAsPlainHttpIs() throws Exception {
        assertLimitedTwiceThenRejected(HttpClient.Version.HTTP_2);
    }

    @Test
    void theDocumentedCurlCallsAnswerOverH2AndHttp11() throws Exception {
        Path certificate = Path.of(config("test.tls.certificate"));
        List<String> answers = DocumentedCurl.run("curl --cacert gateway.crt",
                Map.of("8443", config("test.tls.port"), "/orders/1", "/limited/docs", "ak_42", apiKey),
                certificate.getParent());
        assertThat(answers).containsExactly("2 200", "1.1 200");
    }

    @Test
    void aRenewedKeyStoreIsServedWithoutARestart() throws Exception {
        Path keystore = Path.of(config("test.tls.keystore"));
        assertThat(servedSubject()).isEqualTo("CN=localhost");
        // a renewal as cert-manager makes one: a new key store written beside, then moved over the old one
        Path renewed = keystore.resolveSibling("renewed.p12");
        Process keytool = new ProcessBuilder("keytool", "-genkeypair", "-alias", "gateway", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "30", "-dname", "CN=renewed", "-ext",
                "SAN=dns:localhost,ip:127.0.0.1", "-storetype", "PKCS12", "-keystore", renewed.toString(),
                "-storepass", config("test.tls.password")).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(output).isZero();
        Files.move(renewed, keystore, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);

        org.awaitility.Awaitility.await("the renewed certificate is served").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> servedSubject().equals("CN=renewed"));
    }

    /** The subject of the certificate the gateway's HTTPS port serves now (read without trusting it). */
    private static String servedSubject() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new javax.net.ssl.TrustManager[]{new javax.net.ssl.X509TrustManager() {

            @Override
            public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String type) {
            }

            @Override
            public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String type) {
            }

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }}, null);
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) context.getSocketFactory()
                .createSocket("127.0.0.1", Integer.parseInt(config("test.tls.port")))) {
            socket.setSoTimeout(5_000);
            socket.startHandshake();
            return ((java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }

    @Test
    void anH2UpstreamIsTrustedThroughTheNamedTlsConfiguration() throws Exception {
        // the JVM trusts nothing of the test's: only quarkus.tls.upstream's CA file lets the gateway in
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port()
                + "/tls-upstream/echo")).header("X-API-Key", apiKey).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonObject echo = new JsonObject(answer.body());
        assertThat(echo.getString("version")).as("HTTP/2 by ALPN, so over TLS").isEqualTo("HTTP_2");
        assertThat(echo.getString("uri")).isEqualTo("/tls-upstream/echo");
    }

    private void assertLimitedTwiceThenRejected(HttpClient.Version version) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(version).sslContext(trustingTheTestCertificate())
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + config("test.tls.port")
                + "/limited/a")).header("X-API-Key", apiKey).timeout(Duration.ofSeconds(10)).build();
        for (int remaining = 1; remaining >= 0; remaining--) {
            HttpResponse<String> allowed = client.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(allowed.version()).isEqualTo(version);
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"tls.per-key\";q=2;w=60");
            assertThat(allowed.headers().firstValue("RateLimit-Remaining")).hasValue(Integer.toString(remaining));
            JsonObject headers = new JsonObject(allowed.body()).getJsonObject("headers");
            assertThat(headers.getString("x-forwarded-proto")).isEqualTo("https");
            assertThat(headers.getString("x-forwarded-host")).isEqualTo("127.0.0.1:" + config("test.tls.port"));
        }
        HttpResponse<String> rejected = client.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(rejected.version()).isEqualTo(version);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 60L);
        assertThat(rejected.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(new JsonObject(rejected.body()).getJsonArray("violated-policies").getList())
                .containsExactly("tls.per-key");
        assertThat(backendHits()).as("the rejected request never reached the backend").isEqualTo(2);
    }

    /** An SSL context that trusts the certificate the documented keytool command made, and nothing else. */
    private static SSLContext trustingTheTestCertificate() throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream pem = Files.newInputStream(Path.of(config("test.tls.certificate")))) {
            trusted.setCertificateEntry("gateway", CertificateFactory.getInstance("X.509").generateCertificate(pem));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
