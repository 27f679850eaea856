package io.tollgate.grpc.interop;

import static io.tollgate.grpc.interop.InteropProtos.echoStatus;
import static io.tollgate.grpc.interop.InteropProtos.message;
import static io.tollgate.grpc.interop.InteropProtos.payload;
import static io.tollgate.grpc.interop.InteropProtos.responseParameters;
import static io.tollgate.grpc.interop.InteropProtos.set;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import com.google.protobuf.DynamicMessage;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status.Code;
import io.tollgate.grpc.interop.InteropCall.Outcome;

/**
 * The cases of grpc's {@code doc/interop-test-descriptions.md} that a proxy can break, each a client procedure
 * written from its description and the outcomes its asserts expect (the compression cases also that their messages
 * crossed the wire as sent, {@link InteropCall#wired()}); and, beside them, a 4 MB unary call, 10,000-message
 * streams, binary metadata of every base64 padding, and the error statuses a backend most often ends a unary call
 * with (the interop suite's Echo Status with other codes). Each runs against an {@link InteropServer}, direct or
 * through a gateway.
 */
public enum InteropCase {

    EMPTY_UNARY(List.of(Outcome.ok(0))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.once(channel, InteropProtos.EMPTY_CALL, message("Empty").build()));
        }
    },
    LARGE_UNARY(List.of(Outcome.ok(314159))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.once(channel, InteropProtos.UNARY_CALL, simpleRequest(314159, 271828)));
        }
    },
    CLIENT_STREAMING(List.of(Outcome.ok(74922))) {

        @Override
        public List<Outcome> run(Channel channel) {
            InteropCall call = InteropCall.start(channel, InteropProtos.STREAMING_INPUT_CALL, new Metadata());
            for (int size : List.of(27182, 8, 1828, 45904)) {
                call.send(set(message("StreamingInputCallRequest"), "payload", payload(size)).build());
            }
            return List.of(call.halfClose().outcome());
        }
    },
    SERVER_STREAMING(List.of(Outcome.ok(31415, 9, 2653, 58979))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.once(channel, InteropProtos.STREAMING_OUTPUT_CALL,
                    responseParameters(message("StreamingOutputCallRequest"), List.of(31415, 9, 2653, 58979))
                            .build()));
        }
    },
    PING_PONG(List.of(Outcome.ok(31415, 9, 2653, 58979))) {

        @Override
        public List<Outcome> run(Channel channel) throws InterruptedException {
            InteropCall call = InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata());
            int[][] steps = {{31415, 27182}, {9, 8}, {2653, 1828}, {58979, 45904}};
            for (int[] step : steps) {
                call.send(streamingRequest(step[0], step[1])).awaitAnswer();
            }
            return List.of(call.halfClose().outcome());
        }
    },
    CLIENT_COMPRESSED_UNARY(List.of(Outcome.failed(Code.INVALID_ARGUMENT, "expected a compressed request"),
            Outcome.ok(314159).crossing("requests gzip, answers identity, " + InteropCall.AS_SENT),
            Outcome.ok(314159).crossing("requests identity, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(
                    InteropCall.once(channel, InteropProtos.UNARY_CALL, compressibleRequest("expect_compressed", true)),
                    wired(channel, InteropProtos.UNARY_CALL, GZIP)
                            .send(compressibleRequest("expect_compressed", true)).halfClose().wired(),
                    wired(channel, InteropProtos.UNARY_CALL, PLAIN)
                            .send(compressibleRequest("expect_compressed", false)).halfClose().wired());
        }
    },
    SERVER_COMPRESSED_UNARY(List.of(
            Outcome.ok(314159).crossing("requests identity, answers gzip, " + InteropCall.AS_SENT),
            Outcome.ok(314159).crossing("requests identity, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(
                    wired(channel, InteropProtos.UNARY_CALL, PLAIN)
                            .send(compressibleRequest("response_compressed", true)).halfClose().wired(),
                    wired(channel, InteropProtos.UNARY_CALL, PLAIN)
                            .send(compressibleRequest("response_compressed", false)).halfClose().wired());
        }
    },
    CLIENT_COMPRESSED_STREAMING(List.of(Outcome.failed(Code.INVALID_ARGUMENT, "expected a compressed request"),
            Outcome.ok(73086).crossing("requests gzip, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(
                    InteropCall.start(channel, InteropProtos.STREAMING_INPUT_CALL, new Metadata())
                            .send(input(27182, true)).halfClose().outcome(),
                    wired(channel, InteropProtos.STREAMING_INPUT_CALL, GZIP).send(input(27182, true))
                            .compressing(false).send(input(45904, false)).halfClose().wired());
        }
    },
    SERVER_COMPRESSED_STREAMING(List.of(
            Outcome.ok(31415, 92653).crossing("requests identity, answers gzip, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            DynamicMessage.Builder request = message("StreamingOutputCallRequest");
            responseParameters(request, 31415, true);
            responseParameters(request, 92653, false);
            return List.of(wired(channel, InteropProtos.STREAMING_OUTPUT_CALL, PLAIN).send(request.build())
                    .halfClose().wired());
        }
    },
    /**
     * Not one of grpc's cases: a unary call of a 4 MB request and a 4 MB answer, within grpc-java's default limit of
     * 4 MiB a message.
     */
    UNARY_4_MB(List.of(Outcome.ok(4_000_000).crossing("requests identity, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(wired(channel, InteropProtos.UNARY_CALL, PLAIN).send(simpleRequest(4_000_000, 4_000_000))
                    .halfClose().wired());
        }
    },
    /** Not one of grpc's cases: 10,000 answers of one request, each of its own size, in order. */
    SERVER_STREAMING_10_000(List.of(Outcome.ok(ManyMessages.sizes())
            .crossing("requests identity, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(wired(channel, InteropProtos.STREAMING_OUTPUT_CALL, PLAIN)
                    .send(responseParameters(message("StreamingOutputCallRequest"), ManyMessages.sizes()).build())
                    .halfClose().wired());
        }
    },
    /** Not one of grpc's cases: 10,000 requests of one call, each of its own size. */
    CLIENT_STREAMING_10_000(List.of(Outcome.ok(ManyMessages.total())
            .crossing("requests identity, answers identity, " + InteropCall.AS_SENT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            InteropCall call = wired(channel, InteropProtos.STREAMING_INPUT_CALL, PLAIN);
            for (int size : ManyMessages.sizes()) {
                call.send(set(message("StreamingInputCallRequest"), "payload", payload(size)).build());
            }
            return List.of(call.halfClose().wired());
        }
    },
    /** A trailers-only answer: OK, no message. */
    EMPTY_STREAM(List.of(Outcome.ok())) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata()).halfClose()
                    .outcome());
        }
    },
    CUSTOM_METADATA(List.of(new Outcome(Code.OK, null, List.of(314159), "test_initial_metadata_value ababab", null),
            new Outcome(Code.OK, null, List.of(314159), "test_initial_metadata_value ababab", null))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(
                    InteropCall.start(channel, InteropProtos.UNARY_CALL, echo()).send(simpleRequest(314159, 271828))
                            .halfClose().echoed(),
                    InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, echo())
                            .send(streamingRequest(314159, 271828)).halfClose().echoed());
        }
    },
    /** Trailers-only answers: a status before any message, from a unary call and from a stream. */
    STATUS_CODE_AND_MESSAGE(List.of(Outcome.failed(Code.UNKNOWN, "test status message"),
            Outcome.failed(Code.UNKNOWN, "test status message"))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(echoedByUnaryCall(channel, 2, "test status message"),
                    InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata())
                            .send(set(message("StreamingOutputCallRequest"), "response_status",
                                    echoStatus(2, "test status message")).build())
                            .halfClose().outcome());
        }
    },
    /**
     * A status message of whitespace and Unicode in and beyond the BMP, percent-encoded by the server: in a
     * trailers-only answer (the interop case's unary call) and, beyond the case, in the trailers of a stream that
     * answered a message first.
     */
    SPECIAL_STATUS_MESSAGE(List.of(Outcome.failed(Code.UNKNOWN, SpecialMessage.TEXT),
            new Outcome(Code.UNKNOWN, SpecialMessage.TEXT, List.of(31415), null, null))) {

        @Override
        public List<Outcome> run(Channel channel) throws InterruptedException {
            return List.of(echoedByUnaryCall(channel, 2, SpecialMessage.TEXT),
                    InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata())
                            .send(streamingRequest(31415, 27182)).awaitAnswer()
                            .send(set(message("StreamingOutputCallRequest"), "response_status",
                                    echoStatus(2, SpecialMessage.TEXT)).build())
                            .outcome());
        }
    },
    /**
     * Not an interop case: binary metadata of values that base64 pads differently and that hold the bytes 0x00 and
     * 0xff, each sent to the server and back (Echo Metadata's trailing key, several values), in the trailers after a
     * message and in a trailers-only answer.
     */
    BINARY_METADATA(List.of(new Outcome(Code.OK, null, List.of(0), "null 00,ff00,ababab", null),
            new Outcome(Code.NOT_FOUND, "no order 42", List.of(), "null 00,ff00,ababab", null))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(
                    InteropCall.start(channel, InteropProtos.EMPTY_CALL, binary()).send(message("Empty").build())
                            .halfClose().echoed(),
                    InteropCall.start(channel, InteropProtos.UNARY_CALL, binary())
                            .send(set(message("SimpleRequest"), "response_status", echoStatus(5, "no order 42"))
                                    .build())
                            .halfClose().echoed());
        }
    },
    /** Not an interop case: the statuses a backend most often ends a unary call with, trailers-only. */
    ERROR_STATUSES_OF_A_UNARY_CALL(List.of(Outcome.failed(Code.NOT_FOUND, "no order 42"),
            Outcome.failed(Code.INVALID_ARGUMENT, "quantity: must be positive"),
            Outcome.failed(Code.PERMISSION_DENIED, "not yours"))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(echoedByUnaryCall(channel, 5, "no order 42"),
                    echoedByUnaryCall(channel, 3, "quantity: must be positive"),
                    echoedByUnaryCall(channel, 7, "not yours"));
        }
    },
    UNIMPLEMENTED_METHOD(List.of(Outcome.failed(Code.UNIMPLEMENTED,
            "Method not found: grpc.testing.TestService/UnimplementedCall"))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.once(channel, InteropProtos.UNIMPLEMENTED_CALL, message("Empty").build()));
        }
    },
    UNIMPLEMENTED_SERVICE(List.of(Outcome.failed(Code.UNIMPLEMENTED,
            "Method not found: grpc.testing.UnimplementedService/UnimplementedCall"))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.once(channel, InteropProtos.UNIMPLEMENTED_SERVICE_CALL,
                    message("Empty").build()));
        }
    },
    CANCEL_AFTER_BEGIN(List.of(Outcome.failed(Code.CANCELLED, "cancel_after_begin"))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.start(channel, InteropProtos.STREAMING_INPUT_CALL, new Metadata())
                    .cancel("cancel_after_begin").outcome());
        }
    },
    CANCEL_AFTER_FIRST_RESPONSE(List.of(new Outcome(Code.CANCELLED, "cancel_after_first_response", List.of(31415),
            null, null))) {

        @Override
        public List<Outcome> run(Channel channel) throws InterruptedException {
            return List.of(InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata())
                    .send(streamingRequest(31415, 27182)).awaitAnswer().cancel("cancel_after_first_response")
                    .outcome());
        }
    },
    TIMEOUT_ON_SLEEPING_SERVER(List.of(Outcome.failed(Code.DEADLINE_EXCEEDED, null))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata(),
                    CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.MILLISECONDS))
                    .send(set(message("StreamingOutputCallRequest"), "payload", payload(27182)).build())
                    .outcome().withoutMessage()); // the message is the client's own, with its timings
        }
    };

    /** What the case's asserts expect, call by call. */
    public final List<Outcome> expected;

    InteropCase(List<Outcome> expected) {
        this.expected = expected;
    }

    /** Runs the case's procedure on {@code channel}: how each of its calls ended. */
    public abstract List<Outcome> run(Channel channel) throws InterruptedException;

    /** special_status_message's message: whitespace, and Unicode in and beyond the BMP. */
    private static final class SpecialMessage {

        static final String TEXT = "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";
    }

    /** The sizes of the 10,000-message streams' messages: 0 to 199 bytes, over and over. */
    private static final class ManyMessages {

        static List<Integer> sizes() {
            return IntStream.range(0, 10_000).map(i -> i % 200).boxed().toList();
        }

        static int total() {
            return sizes().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private static final CallOptions PLAIN = CallOptions.DEFAULT;
    /** grpc-java's own compressor for the call's messages. */
    private static final CallOptions GZIP = CallOptions.DEFAULT.withCompression("gzip");

    /**
     * A call whose messages' bytes on the wire are counted at both ends ({@link InteropCall#wired()}), within 10 s of
     * its start.
     */
    private static InteropCall wired(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            CallOptions options) {
        return InteropCall.startWired(channel, method, new Metadata(),
                options.withDeadlineAfter(10, TimeUnit.SECONDS));
    }

    /** The compression cases' {@code SimpleRequest}: large_unary's, with the BoolValue {@code flag} set. */
    private static DynamicMessage compressibleRequest(String flag, boolean value) {
        return set(simpleRequest(314159, 271828).toBuilder(), flag, InteropProtos.bool(value)).build();
    }

    /** client_compressed_streaming's {@code StreamingInputCallRequest}. */
    private static DynamicMessage input(int size, boolean expectCompressed) {
        return set(set(message("StreamingInputCallRequest"), "payload", payload(size)), "expect_compressed",
                InteropProtos.bool(expectCompressed)).build();
    }

    /** Binary metadata of three values: one byte, two, three (base64: two pad characters, one, none). */
    private static Metadata binary() {
        Metadata binary = new Metadata();
        binary.put(InteropServer.ECHO_TRAILING, new byte[]{0});
        binary.put(InteropServer.ECHO_TRAILING, new byte[]{(byte) 0xff, 0});
        binary.put(InteropServer.ECHO_TRAILING, new byte[]{(byte) 0xab, (byte) 0xab, (byte) 0xab});
        return binary;
    }

    /** custom_metadata's keys, new for each call (a channel's interceptors add to what a call starts with). */
    private static Metadata echo() {
        Metadata echo = new Metadata();
        echo.put(InteropServer.ECHO_INITIAL, "test_initial_metadata_value");
        echo.put(InteropServer.ECHO_TRAILING, new byte[]{(byte) 0xab, (byte) 0xab, (byte) 0xab});
        return echo;
    }

    private static Outcome echoedByUnaryCall(Channel channel, int code, String text) {
        return InteropCall.once(channel, InteropProtos.UNARY_CALL,
                set(message("SimpleRequest"), "response_status", echoStatus(code, text)).build());
    }

    private static DynamicMessage simpleRequest(int answerSize, int bodySize) {
        return set(set(message("SimpleRequest"), "response_size", answerSize), "payload", payload(bodySize)).build();
    }

    private static DynamicMessage streamingRequest(int answerSize, int bodySize) {
        return set(responseParameters(message("StreamingOutputCallRequest"), List.of(answerSize)), "payload",
                payload(bodySize)).build();
    }
}
