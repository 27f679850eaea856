package io.tollgate.gateway.support;

import static io.tollgate.gateway.support.InteropProtos.echoStatus;
import static io.tollgate.gateway.support.InteropProtos.message;
import static io.tollgate.gateway.support.InteropProtos.payload;
import static io.tollgate.gateway.support.InteropProtos.responseParameters;
import static io.tollgate.gateway.support.InteropProtos.set;

import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.DynamicMessage;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Metadata;
import io.grpc.Status.Code;
import io.tollgate.gateway.support.InteropCall.Outcome;

/**
 * The cases of grpc's {@code doc/interop-test-descriptions.md} that a proxy can break, each a client procedure
 * written from its description and the outcomes its asserts expect; and, beside them, the error statuses a backend
 * most often ends a unary call with (the interop suite's Echo Status with other codes). Each runs against an
 * {@link InteropServer}, direct or through a gateway.
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
    /** A trailers-only answer: OK, no message. */
    EMPTY_STREAM(List.of(Outcome.ok())) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(InteropCall.start(channel, InteropProtos.FULL_DUPLEX_CALL, new Metadata()).halfClose()
                    .outcome());
        }
    },
    CUSTOM_METADATA(List.of(new Outcome(Code.OK, null, List.of(314159), "test_initial_metadata_value ababab"),
            new Outcome(Code.OK, null, List.of(314159), "test_initial_metadata_value ababab"))) {

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
    SPECIAL_STATUS_MESSAGE(List.of(Outcome.failed(Code.UNKNOWN, SpecialMessage.TEXT))) {

        @Override
        public List<Outcome> run(Channel channel) {
            return List.of(echoedByUnaryCall(channel, 2, SpecialMessage.TEXT));
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
            null))) {

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
