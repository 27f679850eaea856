package io.tollgate.gateway.support;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;

import com.google.protobuf.Int32Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.vertx.core.json.JsonObject;

/**
 * A real gRPC server (grpc-java, HTTP/2 in clear text on a free port) of the service {@code tollgate.grpc.Echo},
 * defined without generated code: its messages are protobuf's well-known wrappers.
 * <ul>
 * <li>{@code Say(StringValue) returns (StringValue)}: {@code "echo: "} and the text, the trailer
 * {@code echo-trailer: said};</li>
 * <li>{@code Count(Int32Value) returns (stream StringValue)}: {@code "1"} to {@code "n"}, the trailer
 * {@code echo-count: n};</li>
 * <li>{@code Hold(StringValue) returns (StringValue)}: never answers; the call ends when its client or the gateway
 * gives up ({@link #cancelled()}).</li>
 * </ul>
 * What it received is told by {@code Stats(StringValue) returns (StringValue)}, a JSON object (not counted as a
 * call): {@code calls} of every method, {@code cancelled} (held calls the other side gave up), and of the last call
 * {@code api_key} (its {@code x-api-key} metadata) and {@code deadline_ms} (what was left of its deadline when it
 * arrived, -1 when it had none). A test reaches it over gRPC, as the gateway's tests reach their HTTP backend.
 */
public final class GrpcEcho implements AutoCloseable {

    public static final String SERVICE = "tollgate.grpc.Echo";
    public static final MethodDescriptor<StringValue, StringValue> SAY = method("Say",
            MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    public static final MethodDescriptor<Int32Value, StringValue> COUNT = method("Count",
            MethodDescriptor.MethodType.SERVER_STREAMING, Int32Value.getDefaultInstance(),
            StringValue.getDefaultInstance());
    public static final MethodDescriptor<StringValue, StringValue> HOLD = method("Hold",
            MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    public static final MethodDescriptor<StringValue, StringValue> STATS = method("Stats",
            MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    public static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER);
    public static final Metadata.Key<String> ECHO_TRAILER = Metadata.Key.of("echo-trailer",
            Metadata.ASCII_STRING_MARSHALLER);
    public static final Metadata.Key<String> ECHO_COUNT = Metadata.Key.of("echo-count",
            Metadata.ASCII_STRING_MARSHALLER);

    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private volatile String lastApiKey;
    private final AtomicLong lastDeadlineMillis = new AtomicLong(-1);
    private final Server server;

    public GrpcEcho() throws Exception {
        ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
                .addMethod(SAY, answering(true, text -> List.of(StringValue.of("echo: " + text.getValue())),
                        text -> trailer(ECHO_TRAILER, "said")))
                .addMethod(COUNT, answering(true,
                        n -> IntStream.rangeClosed(1, n.getValue()).mapToObj(i -> StringValue.of(Integer.toString(i)))
                                .toList(),
                        n -> trailer(ECHO_COUNT, Integer.toString(n.getValue()))))
                .addMethod(HOLD, this::hold)
                .addMethod(STATS, answering(false, ignored -> List.of(stats()), ignored -> new Metadata()))
                .build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(echo).build()
                .start();
    }

    public int port() {
        return server.getPort();
    }

    private void received(Metadata metadata) {
        calls.incrementAndGet();
        lastApiKey = metadata.get(API_KEY);
        Deadline deadline = Context.current().getDeadline();
        lastDeadlineMillis.set(deadline == null ? -1 : deadline.timeRemaining(TimeUnit.MILLISECONDS));
    }

    /**
     * A method that answers its one request with {@code answers}, then closes with {@code trailers}; a call of it
     * is counted and its metadata kept when {@code counted}.
     */
    private <Q, A> ServerCallHandler<Q, A> answering(boolean counted, Function<Q, List<A>> answers,
            Function<Q, Metadata> trailers) {
        return (call, metadata) -> {
            if (counted) {
                received(metadata);
            }
            call.request(1);
            return new ServerCall.Listener<>() {

                @Override
                public void onMessage(Q message) {
                    call.sendHeaders(new Metadata());
                    answers.apply(message).forEach(call::sendMessage);
                    call.close(Status.OK, trailers.apply(message));
                }
            };
        };
    }

    private static Metadata trailer(Metadata.Key<String> key, String value) {
        Metadata trailers = new Metadata();
        trailers.put(key, value);
        return trailers;
    }

    private StringValue stats() {
        return StringValue.of(new JsonObject().put("calls", calls.get()).put("cancelled", cancelled.get())
                .put("api_key", lastApiKey).put("deadline_ms", lastDeadlineMillis.get()).encode());
    }

    private ServerCall.Listener<StringValue> hold(ServerCall<StringValue, StringValue> call, Metadata metadata) {
        received(metadata);
        call.request(1);
        return new ServerCall.Listener<>() {

            @Override
            public void onCancel() {
                cancelled.incrementAndGet();
            }
        };
    }

    private static <Q extends Message, A extends Message> MethodDescriptor<Q, A> method(String name,
            MethodDescriptor.MethodType type, Q request, A answer) {
        return MethodDescriptor.<Q, A>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(ProtoUtils.marshaller(request))
                .setResponseMarshaller(ProtoUtils.marshaller(answer))
                .build();
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
