package io.tollgate.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.hamcrest.Matchers.equalTo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.google.protobuf.Int32Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/** The demo's gRPC service, called by a grpc-java client over h2c, as the gateway calls it. */
@QuarkusTest
class GrpcEchoTest {

    static final MethodDescriptor<StringValue, StringValue> SAY = method("Say", MethodDescriptor.MethodType.UNARY,
            StringValue.getDefaultInstance());
    static final MethodDescriptor<Int32Value, StringValue> COUNT = method("Count",
            MethodDescriptor.MethodType.SERVER_STREAMING, Int32Value.getDefaultInstance());
    static final Metadata.Key<String> KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);

    private ManagedChannel channel;
    private final AtomicReference<Metadata> headers = new AtomicReference<>();
    private final AtomicReference<Metadata> trailers = new AtomicReference<>();

    @BeforeEach
    void connect() {
        given().delete("/__hits").then().statusCode(204);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", RestAssured.port).usePlaintext().build();
    }

    @AfterEach
    void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void saySendsTheTextBackWithTheDeadlineItArrivedWithAndCountsAHit() {
        StringValue answer = ClientCalls.blockingUnaryCall(withKey("ak_42"), SAY,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), StringValue.of("hello"));

        assertThat(answer.getValue()).isEqualTo("echo: hello");
        assertThat(headers.get().get(Metadata.Key.of("demo-grpc-timeout", Metadata.ASCII_STRING_MARSHALLER)))
                .as("grpc-java sends its deadline as grpc-timeout").isNotNull();
        given().get("/__hits").then().body("by_api_key.ak_42", equalTo(1));
    }

    @Test
    void countStreamsOneToNThenATrailer() {
        List<String> got = new ArrayList<>();
        ClientCalls.blockingServerStreamingCall(withKey("ak_7"), COUNT,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), Int32Value.of(3))
                .forEachRemaining(m -> got.add(m.getValue()));

        assertThat(got).containsExactly("1", "2", "3");
        assertThat(trailers.get().get(Metadata.Key.of("demo-count", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("3");
    }

    @Test
    void aCountTooLargeIsAnInvalidArgumentAndAnUnknownMethodUnimplemented() {
        StatusRuntimeException tooMany = catchThrowableOfType(StatusRuntimeException.class,
                () -> ClientCalls.blockingServerStreamingCall(withKey("ak_7"), COUNT,
                        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                        Int32Value.of(GrpcEcho.MAX_COUNT + 1)).hasNext());
        assertThat(tooMany.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

        StatusRuntimeException unknown = catchThrowableOfType(StatusRuntimeException.class,
                () -> ClientCalls.blockingUnaryCall(withKey("ak_7"),
                        SAY.toBuilder().setFullMethodName("tollgate.demo.Echo/Shout").build(),
                        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), StringValue.of("hi")));
        assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void aPostOfAnotherTypeToTheSamePathGetsTheJsonEcho() {
        given().contentType("application/json").body("{}").post("/tollgate.demo.Echo/Say").then().statusCode(200)
                .body("path", equalTo("/tollgate.demo.Echo/Say"));
    }

    private Channel withKey(String apiKey) {
        Metadata key = new Metadata();
        key.put(KEY, apiKey);
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(key),
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    }

    private static <Q extends Message> MethodDescriptor<Q, StringValue> method(String name,
            MethodDescriptor.MethodType type, Q request) {
        return MethodDescriptor.<Q, StringValue>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName("tollgate.demo.Echo", name))
                .setRequestMarshaller(ProtoUtils.marshaller(request))
                .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance())).build();
    }
}
