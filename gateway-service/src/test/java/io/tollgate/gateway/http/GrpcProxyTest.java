package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Int32Value;
import com.google.protobuf.StringValue;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.ErrorLines;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.GrpcEcho;
import io.tollgate.gateway.support.H2Client;
import io.tollgate.gateway.support.H2Client.Answer;
import io.tollgate.gateway.support.RawH2;
import io.tollgate.grpc.interop.InteropCall;
import io.tollgate.grpc.interop.InteropCase;
import io.tollgate.grpc.interop.InteropProtos;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;

/**
 * gRPC through the gateway with grpc-java on both sides: a client and a server ({@link GrpcEcho}) that are not the
 * gateway's Vert.x. Unary and server-streaming calls pass with their messages, metadata and trailers; a limited call
 * reports {@code RESOURCE_EXHAUSTED} with its retry hint in the trailers the client reads, and never reaches the
 * server; the call's deadline reaches the server, and bounds how long the gateway waits for a silent one
 * ({@code DEADLINE_EXCEEDED}); an upstream that is down is {@code UNAVAILABLE}. grpc's interop cases
 * ({@link InteropCase}, docs/protocols.md#grpc) end through the gateway as they end direct, the trailers-only answers
 * among them (a status before any message, UNIMPLEMENTED, an empty stream): one HEADERS frame that ends the stream; so
 * do calls under a rule that settles the bytes of their answers, which are charged. An upstream's reset reaches the
 * client with its code, as direct; status messages and binary metadata pass byte for byte. Real sockets, a real
 * Redis.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "grpc", value = "true"))
class GrpcProxyTest {

    private static final Metadata.Key<String> RETRY_AFTER = Metadata.Key.of("retry-after",
            Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> POLICY = Metadata.Key.of("ratelimit-policy",
            Metadata.ASCII_STRING_MARSHALLER);
    private static final Metadata.Key<String> REMAINING = Metadata.Key.of("ratelimit-remaining",
            Metadata.ASCII_STRING_MARSHALLER);

    private String apiKey;
    private ManagedChannel gateway;
    private ManagedChannel direct;

    @BeforeEach
    void channels() {
        apiKey = "grpc-" + UUID.randomUUID();
        install("""
                [{"id": "grpc.echo", "match": {"path": "/tollgate.grpc.Echo/**", "methods": ["POST"]},
                  "key": "api_key", "limit": 3, "period": "1m", "burst": 3},
                 {"id": "grpc.interop", "match": {"path": "/grpc.testing.TestService/**", "methods": ["POST"]},
                  "key": "api_key", "limit": 10000, "period": "1m", "burst": 10000}]""");
        gateway = NettyChannelBuilder.forAddress("127.0.0.1", port()).usePlaintext().build();
        direct = NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(config("test.grpc.port")))
                .usePlaintext().build();
    }

    @AfterEach
    void close() throws InterruptedException {
        gateway.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        direct.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void aUnaryCallPassesWithItsMetadataAndTrailers() {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        StringValue answer = ClientCalls.blockingUnaryCall(withKey(gateway, headers, trailers), GrpcEcho.SAY,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), StringValue.of("hello"));

        assertThat(answer.getValue()).isEqualTo("echo: hello");
        assertThat(trailers.get().get(GrpcEcho.ECHO_TRAILER)).as("the server's trailer, relayed").isEqualTo("said");
        assertThat(headers.get().get(POLICY)).as("the RateLimit fields in the answer's headers")
                .isEqualTo("\"grpc.echo\";q=3;w=60");
        assertThat(headers.get().get(REMAINING)).isEqualTo("2");
        JsonObject seen = stats();
        assertThat(seen.getString("api_key")).as("the metadata reached the server").isEqualTo(apiKey);
        assertThat(seen.getLong("deadline_ms")).as("grpc-timeout passed on: the server knows the deadline")
                .isBetween(1L, 10_000L);
    }

    @Test
    void aServerStreamingCallRelaysEveryMessageThenTheTrailers() {
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        Iterator<StringValue> answers = ClientCalls.blockingServerStreamingCall(withKey(gateway,
                new AtomicReference<>(), trailers), GrpcEcho.COUNT, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                Int32Value.of(500));
        List<String> got = new ArrayList<>();
        answers.forEachRemaining(m -> got.add(m.getValue()));

        assertThat(got).hasSize(500).startsWith("1", "2").endsWith("500");
        assertThat(trailers.get().get(GrpcEcho.ECHO_COUNT)).isEqualTo("500");
    }

    @Test
    void aLimitedCallIsResourceExhaustedWithARetryHintTheClientReadsAndNeverReachesTheServer() {
        for (int i = 0; i < 3; i++) {
            say(gateway);
        }
        long callsBefore = stats().getLong("calls");

        StatusRuntimeException limited = catchThrowableOfType(StatusRuntimeException.class, () -> say(gateway));

        assertThat(limited.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(limited.getStatus().getDescription()).startsWith("rate limit exceeded; retry after ");
        Metadata trailers = limited.getTrailers();
        assertThat(Long.parseLong(trailers.get(RETRY_AFTER))).as("the retry hint, in the call's metadata")
                .isBetween(1L, 60L);
        assertThat(trailers.get(POLICY)).isEqualTo("\"grpc.echo\";q=3;w=60");
        assertThat(trailers.get(REMAINING)).isEqualTo("0");
        assertThat(stats().getLong("calls")).as("the limited call never reached the server").isEqualTo(callsBefore);
    }

    @Test
    void aCallWithoutTheKeyItIsCountedByIsUnauthenticated() {
        StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(gateway, GrpcEcho.SAY,
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), StringValue.of("hi")));
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    }

    @Test
    void aSilentServerEndsTheCallAsDeadlineExceededFromTheGatewayAndIsToldSo() {
        long cancelledBefore = stats().getLong("cancelled");
        // the gateway's upstream-timeout (700 ms here) is shorter than the client's deadline: the gateway answers
        StatusRuntimeException late = catchThrowableOfType(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(withKey(gateway), GrpcEcho.HOLD,
                        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), StringValue.of("wait")));
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(late.getStatus().getDescription()).contains("did not answer in time");
        await("the server's call is cancelled, not left running").atMost(Duration.ofSeconds(10))
                .until(() -> stats().getLong("cancelled") > cancelledBefore);
    }

    @Test
    void aDeadlineShorterThanTheUpstreamTimeoutBoundsTheGatewaysWait() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            // a client that does not enforce its own deadline (grpc-java's would end the call itself): the gateway does
            Answer answer = h2.send(HttpMethod.POST, "/" + GrpcEcho.SERVICE + "/Hold",
                    MultiMap.caseInsensitiveMultiMap().add("x-api-key", apiKey).add("content-type", "application/grpc")
                            .add("te", "trailers").add("grpc-timeout", "200m"),
                    Buffer.buffer(new byte[]{0, 0, 0, 0, 0}));
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.headers().get("grpc-status")).isEqualTo("4");
            assertThat(answer.headers().get("grpc-message")).contains("grpc-timeout 200m");
        }
    }

    @Test
    void aDeadlineSentTwiceIsReadAsItsFirstCopyAsTheUpstreamReadsIt() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer answer = h2.send(HttpMethod.POST, "/" + GrpcEcho.SERVICE + "/Hold",
                    MultiMap.caseInsensitiveMultiMap().add("x-api-key", apiKey).add("content-type", "application/grpc")
                            .add("te", "trailers").add("grpc-timeout", "200m").add("grpc-timeout", "30S"),
                    Buffer.buffer(new byte[]{0, 0, 0, 0, 0}));
            assertThat(answer.headers().get("grpc-status")).isEqualTo("4");
            assertThat(answer.headers().get("grpc-message")).contains("grpc-timeout 200m");
        }
    }

    @Test
    void aLimitedClientGainsNothingByRespellingTheMethodsPath() throws Exception {
        for (int i = 0; i < 3; i++) {
            say(gateway);
        }
        long callsBefore = stats().getLong("calls");
        try (H2Client h2 = new H2Client(port(), false)) {
            for (String path : List.of("/tollgate.grpc.Echo//Say", "/tollgate.grpc.Echo/%53ay",
                    "/tollgate.grpc.Echo/./Say", "/tollgate.grpc.Echo/x/../Say", "//tollgate.grpc.Echo/Say")) {
                Answer answer = h2.send(HttpMethod.POST, path, grpcCall(), Buffer.buffer(new byte[]{0, 0, 0, 0, 0}));
                assertThat(answer.headers().get("grpc-status")).as(path).isEqualTo("8");
            }
            Answer lowerCase = h2.send(HttpMethod.valueOf("post"), "/tollgate.grpc.Echo/Say", grpcCall(),
                    Buffer.buffer(new byte[]{0, 0, 0, 0, 0}));
            assertThat(lowerCase.headers().get("grpc-status")).as("a method in another case: not read, refused")
                    .isEqualTo("3");
        }
        assertThat(stats().getLong("calls")).as("no spelling reached the server").isEqualTo(callsBefore);
    }

    private MultiMap grpcCall() {
        return MultiMap.caseInsensitiveMultiMap().add("x-api-key", apiKey).add("content-type", "application/grpc")
                .add("te", "trailers");
    }

    @Test
    void anUpstreamThatIsDownIsUnavailable() {
        install("[" + rule("grpc.down", "/tollgate.down.Echo/**", "api_key", 100, "1m", 100, "") + "]");
        StatusRuntimeException down = catchThrowableOfType(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(withKey(gateway),
                        GrpcEcho.SAY.toBuilder().setFullMethodName("tollgate.down.Echo/Say").build(),
                        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), StringValue.of("anyone?")));
        assertThat(down.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(down.getStatus().getDescription()).contains("unreachable");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(InteropCase.class)
    void grpcsInteropCaseEndsThroughTheGatewayAsItEndsDirect(InteropCase interop) throws Exception {
        // the rule on the service, grpc.interop, is this class's (channels())
        ManagedChannel interopDirect = channelTo(Integer.parseInt(config("test.interop.port")));
        try {
            assertThat(interop.run(interopDirect)).as("direct").isEqualTo(interop.expected);
            assertThat(interop.run(withKey(gateway))).as("through the gateway").isEqualTo(interop.expected);
        } finally {
            interopDirect.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCallWhoseCostIsSettledEndsAsDirectAndIsChargedTheBytesOfItsAnswer() throws Exception {
        // a reservation of 1,000,000 bytes, settled to the answer's messages as framed; the bucket refills 1 an hour
        install("[" + rule("grpc.bytes", "/" + InteropProtos.SERVICE + "/**", "api_key", 1, "1h", 10_000_000,
                "\"cost\":1000000,\"unit\":\"content-bytes\",\"settle\":{\"from\":\"response_bytes\"}") + "]");
        ManagedChannel interopDirect = channelTo(Integer.parseInt(config("test.interop.port")));
        try {
            for (InteropCase interop : List.of(InteropCase.LARGE_UNARY, InteropCase.STATUS_CODE_AND_MESSAGE)) {
                assertThat(interop.run(withKey(gateway))).as(interop + " through the gateway")
                        .isEqualTo(interop.run(interopDirect)).isEqualTo(interop.expected);
            }
        } finally {
            interopDirect.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        // large_unary's answer: one message of 314,159 bytes of payload (protobuf's tags and lengths, 8 bytes), framed
        // in 5; status_code_and_message's two calls end before any message: 0 bytes each
        long answered = 5 + InteropProtos.set(InteropProtos.message("SimpleResponse"), "payload",
                InteropProtos.payload(314159)).build().getSerializedSize();
        assertThat(answered).isEqualTo(314_172);
        await("each call is settled to the bytes of its answer").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(remaining("/" + InteropProtos.SERVICE + "/UnaryCall")).isEqualTo(10_000_000 - answered);
            assertThat(metric("tollgate_settlements_total{outcome=\"settled\",rule=\"grpc.bytes\"}")).isEqualTo(3);
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"8", "7", "2", "8/after-message", "2/after-message"})
    void anUpstreamsResetReachesTheClientWithItsCodeAsDirectAndIsNoError(String reset) throws Exception {
        // a grpc-java call of an upstream that resets its stream: CANCEL (8), REFUSED_STREAM (7), INTERNAL_ERROR (2);
        // before its answer, or after the answer's head and a message
        MethodDescriptor<DynamicMessage, DynamicMessage> resetting = InteropProtos.EMPTY_CALL.toBuilder()
                .setFullMethodName("h2c/reset/" + reset).build();
        long code = Long.parseLong(reset.split("/")[0]);
        URI backend = URI.create(config("test.backend.url"));
        ManagedChannel backendDirect = channelTo(backend.getPort());
        try (ErrorLines errors = ErrorLines.collect(); RawH2 raw = new RawH2(port())) {
            InteropCall.Outcome direct = InteropCall.once(backendDirect, resetting, InteropProtos.message("Empty")
                    .build());
            InteropCall.Outcome through = InteropCall.once(gateway, resetting, InteropProtos.message("Empty").build());
            assertThat(through).as("through the gateway, as direct").isEqualTo(direct);
            assertThat(direct.code()).isEqualTo(switch ((int) code) {
                case 8 -> Status.Code.CANCELLED;
                case 7 -> Status.Code.UNAVAILABLE; // grpc-java retried it once, as a stream the server never took
                default -> Status.Code.INTERNAL;
            });

            RawH2.Answer answer = raw.send("POST", "/h2c/reset/" + reset, List.of(
                    new String[]{"content-type", "application/grpc"}, new String[]{"te", "trailers"}),
                    new byte[]{0, 0, 0, 0, 0});
            assertThat(answer.resetCode()).as("the upstream's code, in the client's RST_STREAM").isEqualTo(code);
            assertThat(answer.frames()).as("the answer as far as it came, then the reset")
                    .isEqualTo(reset.endsWith("after-message")
                            ? List.of("HEADERS", "DATA", "RST_STREAM")
                            : List.of("RST_STREAM"));
            assertThat(errors.lines()).as("a reset is no error of the gateway's").isEmpty();
        } finally {
            backendDirect.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void statusMessagesAndBinaryMetadataPassByteForByteBothWays() throws Exception {
        // the server's grpc-message (percent-encoded: whitespace, Unicode in and beyond the BMP) and -bin trailers,
        // raw, through the gateway as direct, in a trailers-only answer and in the trailers after a message
        String special = "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";
        String encoded = "%09%0Atest with whitespace%0D%0Aand Unicode BMP %E2%98%BA and non-BMP %F0%9F%98%88%09%0A";
        DynamicMessage status = InteropProtos.set(InteropProtos.message("StreamingOutputCallRequest"),
                "response_status", InteropProtos.echoStatus(2, special)).build();
        DynamicMessage first = InteropProtos.responseParameters(InteropProtos.message("StreamingOutputCallRequest"),
                List.of(9)).build();
        MultiMap metadata = grpcCall().add("x-grpc-test-echo-trailing-bin", "AA")
                .add("x-grpc-test-echo-trailing-bin", "/wA=").add("x-grpc-test-echo-trailing-bin", "q6ur");
        int interop = Integer.parseInt(config("test.interop.port"));
        for (boolean afterAMessage : new boolean[]{false, true}) {
            Buffer body = afterAMessage ? frame(first).appendBuffer(frame(status)) : frame(status);
            Answer direct;
            Answer through;
            try (H2Client toServer = new H2Client(interop, false); H2Client toGateway = new H2Client(port(), false)) {
                direct = toServer.send(HttpMethod.POST, "/" + InteropProtos.SERVICE + "/FullDuplexCall", metadata,
                        body);
                through = toGateway.send(HttpMethod.POST, "/" + InteropProtos.SERVICE + "/FullDuplexCall", metadata,
                        body);
            }
            // a trailers-only answer's status is in its one head; else in its trailers
            MultiMap ending = afterAMessage ? through.trailers() : through.headers();
            MultiMap endingDirect = afterAMessage ? direct.trailers() : direct.headers();
            assertThat(ending.get("grpc-message")).as("the server's encoding, byte for byte").isEqualTo(encoded)
                    .isEqualTo(endingDirect.get("grpc-message"));
            assertThat(ending.getAll("x-grpc-test-echo-trailing-bin")).as("each value as the server wrote it")
                    .containsExactly("AA", "/wA", "q6ur")
                    .isEqualTo(endingDirect.getAll("x-grpc-test-echo-trailing-bin"));
            assertThat(through.body()).isEqualTo(direct.body());
        }

        // the client's metadata reaches the upstream as sent: padding, a percent sign, inner whitespace
        try (H2Client toGateway = new H2Client(port(), false)) {
            Answer echo = toGateway.send(HttpMethod.POST, "/h2c/echo", MultiMap.caseInsensitiveMultiMap()
                    .add("content-type", "application/grpc").add("x-trace-bin", "/wA=").add("x-span-bin", "q6ur")
                    .add("x-note", "100%25 as\tsent"), Buffer.buffer(new byte[5]));
            JsonObject received = new JsonObject(echo.body()).getJsonObject("headers");
            assertThat(received.getString("x-trace-bin")).isEqualTo("/wA=");
            assertThat(received.getString("x-span-bin")).isEqualTo("q6ur");
            assertThat(received.getString("x-note")).isEqualTo("100%25 as\tsent");
        }
    }

    /** {@code message} as one gRPC message: not compressed, its length, its bytes. */
    private static Buffer frame(DynamicMessage message) {
        byte[] bytes = message.toByteArray();
        return Buffer.buffer().appendByte((byte) 0).appendInt(bytes.length).appendBytes(bytes);
    }

    private long remaining(String path) {
        return operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=" + path).jsonPath()
                .getLong("rules[0].remaining");
    }

    private static ManagedChannel channelTo(int port) {
        return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    }

    @Test
    void aTrailersOnlyAnswerIsOneHeadThatEndsTheStreamWithTheRateLimitFieldsAndNoAddedLength() throws Exception {
        install("[" + rule("grpc.interop", "/" + InteropProtos.SERVICE + "/**", "api_key", 10, "1m", 10, "") + "]");
        try (H2Client h2 = new H2Client(port(), false)) {
            Answer answer = h2.send(HttpMethod.POST, "/" + InteropProtos.SERVICE + "/UnimplementedCall", grpcCall(),
                    Buffer.buffer(new byte[]{0, 0, 0, 0, 0}));
            assertThat(answer.headers().get("grpc-status")).as("the status, in the head").isEqualTo("12");
            assertThat(answer.headers().get("ratelimit-policy")).isEqualTo("\"grpc.interop\";q=10;w=60");
            assertThat(answer.headers().contains("content-length")).as("no length the server did not send").isFalse();
            assertThat(answer.body()).isEmpty();
            assertThat(answer.trailers().isEmpty()).as("no trailers frame after the head").isTrue();
        }
        // grpc-java reads the status of a head only when that head ends the stream
        Metadata key = new Metadata();
        key.put(GrpcEcho.API_KEY, apiKey);
        InteropCall.Outcome unimplemented = InteropCall.start(gateway, InteropProtos.UNIMPLEMENTED_CALL, key)
                .send(InteropProtos.message("Empty").build()).halfClose().outcome();
        assertThat(unimplemented.code()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    private StringValue say(ManagedChannel channel) {
        return ClientCalls.blockingUnaryCall(withKey(channel), GrpcEcho.SAY,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), StringValue.of("hi"));
    }

    /** The channel with this test's API key in every call's metadata, keeping the answer's headers and trailers. */
    private io.grpc.Channel withKey(ManagedChannel channel, AtomicReference<Metadata> headers,
            AtomicReference<Metadata> trailers) {
        Metadata key = new Metadata();
        key.put(GrpcEcho.API_KEY, apiKey);
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(key),
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    }

    private io.grpc.Channel withKey(ManagedChannel channel) {
        return withKey(channel, new AtomicReference<>(), new AtomicReference<>());
    }

    private JsonObject stats() {
        return new JsonObject(ClientCalls.blockingUnaryCall(direct, GrpcEcho.STATS,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), StringValue.of("")).getValue());
    }
}
