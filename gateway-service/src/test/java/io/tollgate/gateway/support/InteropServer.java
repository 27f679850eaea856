package io.tollgate.gateway.support;

import static io.tollgate.gateway.support.InteropProtos.get;
import static io.tollgate.gateway.support.InteropProtos.has;
import static io.tollgate.gateway.support.InteropProtos.message;
import static io.tollgate.gateway.support.InteropProtos.payload;
import static io.tollgate.gateway.support.InteropProtos.payloadSize;
import static io.tollgate.gateway.support.InteropProtos.set;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.DynamicMessage;

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
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * A grpc-java server of {@code grpc.testing.TestService} (HTTP/2 in clear text on a free port), written from the
 * server features of grpc's {@code doc/interop-test-descriptions.md}: EmptyCall, UnaryCall, StreamingInputCall,
 * StreamingOutputCall, FullDuplexCall, Echo Status ({@code response_status}: the call ends with that code and
 * message) and Echo Metadata ({@code x-grpc-test-echo-initial} back in the answer's headers,
 * {@code x-grpc-test-echo-trailing-bin} in its trailers). {@code UnimplementedCall} and
 * {@code grpc.testing.UnimplementedService} are not served: grpc-java answers them {@code UNIMPLEMENTED}.
 */
public final class InteropServer implements AutoCloseable {

    public static final Metadata.Key<String> ECHO_INITIAL = Metadata.Key.of("x-grpc-test-echo-initial",
            Metadata.ASCII_STRING_MARSHALLER);
    public static final Metadata.Key<byte[]> ECHO_TRAILING = Metadata.Key.of("x-grpc-test-echo-trailing-bin",
            Metadata.BINARY_BYTE_MARSHALLER);

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
                .addService(ServerInterceptors.intercept(service, new EchoMetadata()))
                .build()
                .start();
    }

    public int port() {
        return server.getPort();
    }

    private void unary(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (!echoedStatus(request, answer)) {
            int size = (Integer) get(request, "response_size");
            answer.onNext(set(message("SimpleResponse"), "payload", payload(size)).build());
            answer.onCompleted();
        }
    }

    private StreamObserver<DynamicMessage> input(StreamObserver<DynamicMessage> answer) {
        return new Requests(answer) {

            private int total;

            @Override
            public void onNext(DynamicMessage request) {
                total += payloadSize(request);
            }

            @Override
            public void onCompleted() {
                answer.onNext(set(message("StreamingInputCallResponse"), "aggregated_payload_size", total).build());
                answer.onCompleted();
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
     * Answers a {@code StreamingOutputCallRequest}: a message of each of its response sizes, unless it asks for a
     * status (then the call ends with it). Whether the call goes on.
     */
    private static boolean answered(DynamicMessage request, StreamObserver<DynamicMessage> answer) {
        if (echoedStatus(request, answer)) {
            return false;
        }
        for (Object parameters : (List<?>) get(request, "response_parameters")) {
            int size = (Integer) get((DynamicMessage) parameters, "size");
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

    /** Echo Metadata: the client's echo keys back, in the answer's headers and in its trailers. */
    private static final class EchoMetadata implements ServerInterceptor {

        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                ServerCallHandler<Q, A> next) {
            String initial = headers.get(ECHO_INITIAL);
            byte[] trailing = headers.get(ECHO_TRAILING);
            return next.startCall(new SimpleForwardingServerCall<>(call) {

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
                        trailers.put(ECHO_TRAILING, trailing);
                    }
                    super.close(status, trailers);
                }
            }, headers);
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
