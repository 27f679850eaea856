package io.tollgate.grpc.interop;

import static io.tollgate.grpc.interop.InteropProtos.flag;
import static io.tollgate.grpc.interop.InteropProtos.get;
import static io.tollgate.grpc.interop.InteropProtos.has;
import static io.tollgate.grpc.interop.InteropProtos.message;
import static io.tollgate.grpc.interop.InteropProtos.payload;
import static io.tollgate.grpc.interop.InteropProtos.payloadSize;
import static io.tollgate.grpc.interop.InteropProtos.set;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.DynamicMessage;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * A grpc-java server of {@code grpc.testing.TestService} (HTTP/2 in clear text on a free port), written from the
 * server features of grpc's {@code doc/interop-test-descriptions.md}: EmptyCall, UnaryCall, StreamingInputCall,
 * StreamingOutputCall, FullDuplexCall, Echo Status ({@code response_status}: the call ends with that code and
 * message), Echo Metadata ({@code x-grpc-test-echo-initial} back in the answer's headers, each
 * {@code x-grpc-test-echo-trailing-bin} in its trailers), CompressedResponse (gzip, as {@code response_compressed}
 * and {@code ResponseParameters.compressed} ask) and CompressedRequest (a request that {@code expect_compressed} on a
 * call whose {@code grpc-encoding} is not gzip fails with {@code INVALID_ARGUMENT}). {@code UnimplementedCall} and
 * {@code grpc.testing.UnimplementedService} are not served: grpc-java answers them {@code UNIMPLEMENTED}.
 * <p>
 * Beyond grpc's features: a call that asks is told in its trailers how many bytes of messages the server read and
 * wrote on the wire ({@link WireBytes}), so a client sees whether its messages arrived as it sent them and the
 * server's as the server sent them.
 */
public final class InteropServer implements AutoCloseable {

    public static final Metadata.Key<String> ECHO_INITIAL = Metadata.Key.of("x-grpc-test-echo-initial",
            Metadata.ASCII_STRING_MARSHALLER);
    public static final Metadata.Key<byte[]> ECHO_TRAILING = Metadata.Key.of("x-grpc-test-echo-trailing-bin",
            Metadata.BINARY_BYTE_MARSHALLER);
    private static final Metadata.Key<String> ENCODING = Metadata.Key.of("grpc-encoding",
            Metadata.ASCII_STRING_MARSHALLER);
    /** The call's {@code grpc-encoding}, for CompressedRequest. */
    private static final Context.Key<String> REQUEST_ENCODING = Context.key("request-encoding");

    private final Server server;

    public InteropServer() throws Exception {
        ServerServiceDefinition service = ServerServiceDefinition.builder(InteropProtos.SERVICE)
                .addMethod(InteropProtos.EMPTY_CALL, ServerCalls.asyncUnaryCall((request, answer) -> {
                    answer.onNext(message("Empty").build());
                    answer.onCompleted();
                }))
                .addMethod(InteropProtos.UNARY_CALL, ServerCalls.asyncUnaryCall(this::unary))
                .addMethod(InteropProtos.STREAMING_OUTPUT_CALL,
                        ServerCalls.asyncServerStreamingCall((request, answer) -> {
                            if (answered(request, answer)) {
                                answer.onCompleted();
                            }
                        }))
                .addMethod(InteropProtos.STREAMING_INPUT_CALL, ServerCalls.asyncClientStreamingCall(this::input))
                .addMethod(InteropProtos.FULL_DUPLEX_CALL, ServerCalls.asyncBidiStreamingCall(this::duplex))
                .build();
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(service, new Observed()))
                .addStreamTracerFactory(WireBytes.AtServer.FACTORY)
                .build()
                .start();
    }

    public int port() {
        return server.getPort();
    }

    private void unary(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (!compressedAsExpected(request, answer) || echoedStatus(request, answer)) {
            return;
        }
        if (flag(request, "response_compressed")) {
            ((ServerCallStreamObserver<DynamicMessage>) answer).setCompression("gzip");
        }
        int size = (Integer) get(request, "response_size");
        answer.onNext(set(message("SimpleResponse"), "payload", payload(size)).build());
        answer.onCompleted();
    }

    private StreamObserver<DynamicMessage> input(StreamObserver<DynamicMessage> answer) {
        return new Requests(answer) {

            private int total;
            private boolean over;

            @Override
            public void onNext(DynamicMessage request) {
                over = over || !compressedAsExpected(request, answer);
                total += payloadSize(request);
            }

            @Override
            public void onCompleted() {
                if (!over) {
                    answer.onNext(set(message("StreamingInputCallResponse"), "aggregated_payload_size", total)
                            .build());
                    answer.onCompleted();
                }
            }
        };
    }

    private StreamObserver<DynamicMessage> duplex(StreamObserver<DynamicMessage> answer) {
        return new Requests(answer) {

            private boolean over;

            @Override
            public void onNext(DynamicMessage request) {
                over = over || !answered(request, answer); // Echo Status: nothing more is processed
            }

            @Override
            public void onCompleted() {
                if (!over) {
                    answer.onCompleted();
                }
            }
        };
    }

    /** A request stream's observer: a cancel (or a deadline passed) ends the call, with nothing to answer. */
    private abstract class Requests implements StreamObserver<DynamicMessage> {

        final StreamObserver<DynamicMessage> answer;

        Requests(StreamObserver<DynamicMessage> answer) {
            this.answer = answer;
        }

        @Override
        public void onError(Throwable cancel) {
            // the call is over; grpc-java has told the client already
        }
    }

    /**
     * Answers a {@code StreamingOutputCallRequest}: a message of each of its response sizes, each compressed as its
     * parameters ask, unless it asks for a status (then the call ends with it). Whether the call goes on.
     */
    private static boolean answered(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (echoedStatus(request, answer)) {
            return false;
        }
        List<?> all = (List<?>) get(request, "response_parameters");
        ServerCallStreamObserver<DynamicMessage> call = (ServerCallStreamObserver<DynamicMessage>) answer;
        if (all.stream().anyMatch(parameters -> flag((DynamicMessage) parameters, "compressed"))) {
            call.setCompression("gzip"); // the call's encoding; each message then says whether it is compressed
        }
        for (Object each : all) {
            DynamicMessage parameters = (DynamicMessage) each;
            call.setMessageCompression(flag(parameters, "compressed"));
            int size = (Integer) get(parameters, "size");
            answer.onNext(set(message("StreamingOutputCallResponse"), "payload", payload(size)).build());
        }
        return true;
    }

    /** Echo Status: ends the call with the request's {@code response_status}, when it has one. */
    private static boolean echoedStatus(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (!has(request, "response_status")) {
            return false;
        }
        DynamicMessage status = (DynamicMessage) get(request, "response_status");
        answer.onError(Status.fromCodeValue((Integer) get(status, "code"))
                .withDescription((String) get(status, "message")).asRuntimeException());
        return true;
    }

    /**
     * CompressedRequest: a request that {@code expect_compressed} came on a call of {@code grpc-encoding: gzip}, or the
     * call fails with {@code INVALID_ARGUMENT}. Whether it did.
     */
    private static boolean compressedAsExpected(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (!flag(request, "expect_compressed") || "gzip".equals(REQUEST_ENCODING.get())) {
            return true;
        }
        answer.onError(Status.INVALID_ARGUMENT.withDescription("expected a compressed request")
                .asRuntimeException());
        return false;
    }

    /**
     * Echo Metadata: the client's echo keys back, in the answer's headers and in its trailers; the call's encoding
     * for CompressedRequest; the wire's bytes in the trailers of a call that asks for them.
     */
    private static final class Observed implements ServerInterceptor {

        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                ServerCallHandler<Q, A> next) {
            String initial = headers.get(ECHO_INITIAL);
            Iterable<byte[]> trailing = headers.getAll(ECHO_TRAILING);
            WireBytes.AtServer wire = headers.containsKey(WireBytes.KEY) ? WireBytes.AtServer.current() : null;
            ServerCall<Q, A> observed = new SimpleForwardingServerCall<>(call) {

                @Override
                public void sendHeaders(Metadata answerHeaders) {
                    if (initial != null) {
                        answerHeaders.put(ECHO_INITIAL, initial);
                    }
                    super.sendHeaders(answerHeaders);
                }

                @Override
                public void close(Status status, Metadata trailers) {
                    if (trailing != null) {
                        trailing.forEach(value -> trailers.put(ECHO_TRAILING, value));
                    }
                    if (wire != null) {
                        trailers.put(WireBytes.KEY, wire.counts());
                    }
                    super.close(status, trailers);
                }
            };
            return Contexts.interceptCall(Context.current().withValue(REQUEST_ENCODING, headers.get(ENCODING)),
                    observed, headers, next);
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
