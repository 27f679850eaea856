package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.H2Client;
import io.tollgate.gateway.support.H2Client.Answer;
import io.tollgate.gateway.support.RawH2;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;

/**
 * A limited gRPC call (HTTP/2, {@code Content-Type: application/grpc}) is answered as gRPC clients read a quota:
 * trailers-only, HTTP 200, {@code grpc-status: 8} (RESOURCE_EXHAUSTED), with the RateLimit fields and
 * {@code retry-after}, in one HEADERS frame that ends the stream and adds no {@code content-length}, as a gRPC server
 * answers; the same path called as plain HTTP still gets the 429 problem. Real sockets, a real Redis.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "grpc", value = "true"))
class GrpcAnswersTest {

    private static final String METHOD = "/tollgate.test.Echo/Say";
    /** A gRPC message frame: not compressed, 3 bytes long. */
    private static final byte[] FRAME = {0, 0, 0, 0, 3, 'h', 'e', 'y'};

    private String apiKey;

    @BeforeEach
    void freshClient() {
        apiKey = "grpc-" + UUID.randomUUID();
        resetBackend();
        install("[" + rule("grpc.echo", "/tollgate.test.Echo/**", "api_key", 1, "1m", 1, "") + "]");
    }

    @Test
    void aLimitedCallIsResourceExhaustedWithTheRetryHintAndNeverReachesTheBackend() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer allowed = call(h2, "application/grpc");
            assertThat(allowed.version()).isEqualTo(HttpVersion.HTTP_2);
            assertThat(allowed.headers().get("grpc-status")).as("the backend's answer, passed on").isNull();

            Answer limited = call(h2, "application/grpc+proto");
            assertThat(limited.status()).as("gRPC answers its errors with HTTP 200").isEqualTo(200);
            assertThat(limited.headers().get("Content-Type")).isEqualTo("application/grpc");
            assertThat(limited.headers().get("grpc-status")).isEqualTo("8");
            assertThat(limited.headers().get("grpc-message")).startsWith("rate limit exceeded; retry after ");
            assertThat(Long.parseLong(limited.headers().get("Retry-After"))).isBetween(1L, 60L);
            assertThat(limited.headers().get("RateLimit-Policy")).isEqualTo("\"grpc.echo\";q=1;w=60");
            assertThat(limited.headers().get("RateLimit-Remaining")).isEqualTo("0");
            assertThat(limited.body()).as("trailers-only: no message").isEmpty();
            assertThat(backendHits()).as("the limited call never reached the backend").isEqualTo(1);

            Answer plain = h2.send(HttpMethod.POST, METHOD, MultiMap.caseInsensitiveMultiMap()
                    .add("X-API-Key", apiKey).add("Content-Type", "application/json"), Buffer.buffer("{}"));
            assertThat(plain.status()).as("not a gRPC call: the usual 429").isEqualTo(429);
            assertThat(plain.headers().get("Content-Type")).isEqualTo("application/problem+json");
            assertThat(plain.headers().get("grpc-status")).isNull();
        }
    }

    @Test
    void aCallWithoutTheKeyItIsCountedByIsUnauthenticated() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer answer = h2.send(HttpMethod.POST, METHOD,
                    MultiMap.caseInsensitiveMultiMap().add("Content-Type", "application/grpc"), Buffer.buffer(FRAME));
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.headers().get("grpc-status")).isEqualTo("16");
            assertThat(answer.headers().get("grpc-message")).contains("X-API-Key");
        }
    }

    @Test
    void aSecondKeyHeaderOnAGrpcCallIsRefusedAsGrpc() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer answer = h2.send(HttpMethod.POST, METHOD, MultiMap.caseInsensitiveMultiMap().add("X-API-Key", apiKey)
                    .add("X-API-Key", apiKey + "-other").add("Content-Type", "application/grpc"), Buffer.buffer(FRAME));
            assertThat(answer.headers().get("grpc-status")).as("one identity per call").isEqualTo("3");
            assertThat(backendHits()).isZero();
        }
    }

    @Test
    void aRefusalIsOneHeadersFrameThatEndsTheStreamWithoutALengthAsAGrpcServerAnswers() throws Exception {
        try (RawH2 h2 = new RawH2(port())) {
            List<String[]> call = List.of(new String[]{"content-type", "application/grpc"},
                    new String[]{"te", "trailers"});
            RawH2.Answer unauthenticated = h2.send("POST", METHOD, call, FRAME);
            assertThat(unauthenticated.headers()).containsEntry(":status", "200").containsEntry("grpc-status", "16")
                    .doesNotContainKey("content-length");
            assertThat(unauthenticated.frames()).as("trailers-only").containsExactly("HEADERS END_STREAM");

            List<String[]> keyed = new ArrayList<>(call);
            keyed.add(new String[]{"x-api-key", apiKey});
            h2.send("POST", METHOD, keyed, FRAME); // the rule's one call
            RawH2.Answer limited = h2.send("POST", METHOD, keyed, FRAME);
            assertThat(limited.headers()).containsEntry("grpc-status", "8").containsEntry("ratelimit-remaining", "0")
                    .containsKey("retry-after").doesNotContainKey("content-length");
            assertThat(limited.frames()).containsExactly("HEADERS END_STREAM");
        }
    }

    @Test
    void httpStatusesMapToGrpcStatusesAndMessagesArePercentEncoded() {
        assertThat(GrpcAnswers.status(429)).isEqualTo(8);
        assertThat(GrpcAnswers.status(401)).isEqualTo(16);
        assertThat(GrpcAnswers.status(503)).isEqualTo(14);
        assertThat(GrpcAnswers.status(502)).isEqualTo(14);
        assertThat(GrpcAnswers.status(504)).isEqualTo(4);
        assertThat(GrpcAnswers.status(400)).isEqualTo(3);
        assertThat(GrpcAnswers.status(500)).isEqualTo(13);
        assertThat(GrpcAnswers.percentEncoded("limit 100% reached: é")).isEqualTo("limit 100%25 reached: %C3%A9");
        assertThat(GrpcAnswers.isGrpc("application/grpc")).isTrue();
        assertThat(GrpcAnswers.isGrpc("Application/GRPC+proto")).isTrue();
        assertThat(GrpcAnswers.isGrpc("application/grpc; charset=utf-8")).isTrue();
        assertThat(GrpcAnswers.isGrpc("application/grpcx")).isFalse();
        assertThat(GrpcAnswers.isGrpc("application/grpc-web")).as("gRPC-Web is out of scope").isFalse();
        assertThat(GrpcAnswers.isGrpc("text/plain; application/grpc")).isFalse();
        assertThat(GrpcAnswers.isGrpc((String) null)).isFalse();
    }

    private Answer call(H2Client h2, String contentType) throws Exception {
        return h2.send(HttpMethod.POST, METHOD, MultiMap.caseInsensitiveMultiMap().add("X-API-Key", apiKey)
                .add("Content-Type", contentType).add("te", "trailers"), Buffer.buffer(FRAME));
    }
}
