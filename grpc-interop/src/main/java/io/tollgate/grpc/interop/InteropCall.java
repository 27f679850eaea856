package io.tollgate.grpc.interop;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.DynamicMessage;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * One call of {@code grpc.testing.TestService} as an interop client makes it, step by step (send, half-close, take
 * an answer, cancel), then its {@link Outcome}. Every wait is bounded (10 s).
 */
public final class InteropCall extends ClientCall.Listener<DynamicMessage> {

    /**
     * How a call ended, as an interop case's asserts read it: its status code and message, the size of each message
     * it answered (a payload's body, {@code aggregated_payload_size}, or the serialized size of an {@code Empty}), its
     * echoed metadata ({@code "<initial> <each trailing value, hex, comma-separated>"}) and how its messages crossed
     * the wire ({@link InteropCall#wired()}), each null when the case reads none.
     */
    public record Outcome(Status.Code code, String message, List<Integer> sizes, String echoed, String wire) {

        public static Outcome ok(Integer... sizes) {
            return ok(List.of(sizes));
        }

        public static Outcome ok(List<Integer> sizes) {
            return new Outcome(Status.Code.OK, null, sizes, null, null);
        }

        public static Outcome failed(Status.Code code, String message) {
            return new Outcome(code, message, List.of(), null, null);
        }

        /** The same without its message: a status the client itself gave (a deadline, a cancel). */
        public Outcome withoutMessage() {
            return new Outcome(code, null, sizes, echoed, wire);
        }

        /** The same, its messages having crossed the wire as {@code wire} says ({@link InteropCall#wired()}). */
        public Outcome crossing(String wire) {
            return new Outcome(code, message, sizes, echoed, wire);
        }
    }

    /** What a call whose messages went as sent both ways reads in {@link Outcome#wire()}, after their codings. */
    public static final String AS_SENT = "as sent";

    private final ClientCall<DynamicMessage, DynamicMessage> call;
    private final BlockingQueue<DynamicMessage> answers = new LinkedBlockingQueue<>();
    private final List<Integer> sizes = new ArrayList<>();
    private final CompletableFuture<Status> closed = new CompletableFuture<>();
    private volatile Metadata headers;
    private volatile Metadata trailers;
    /** The bytes of this call's messages on the client's side of the wire; null unless {@link #startWired}. */
    private final WireBytes.AtClient wire;

    private InteropCall(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            CallOptions options, Metadata metadata, WireBytes.AtClient wire) {
        this.wire = wire;
        call = channel.newCall(method, wire == null ? options : options.withStreamTracerFactory(wire));
        call.start(this, metadata);
        call.request(Integer.MAX_VALUE);
    }

    /** Starts a call of {@code method} with {@code metadata}, within 10 s. */
    public static InteropCall start(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            Metadata metadata) {
        return start(channel, method, metadata, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    }

    public static InteropCall start(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            Metadata metadata, CallOptions options) {
        return new InteropCall(channel, method, options, metadata, null);
    }

    /**
     * As {@link #start(Channel, MethodDescriptor, Metadata, CallOptions)}, counting the bytes of the call's messages
     * on the wire at both ends (the server's count comes back in its trailers, {@link WireBytes}):
     * {@link #wired()} then says whether they crossed as they were sent.
     */
    public static InteropCall startWired(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            Metadata metadata, CallOptions options) {
        Metadata asking = new Metadata();
        asking.merge(metadata);
        asking.put(WireBytes.KEY, "count");
        return new InteropCall(channel, method, options, asking, new WireBytes.AtClient());
    }

    /** A unary or server-streaming call: {@code request}, half-closed, and how it ended. */
    public static Outcome once(Channel channel, MethodDescriptor<DynamicMessage, DynamicMessage> method,
            DynamicMessage request) {
        return start(channel, method, new Metadata()).send(request).halfClose().outcome();
    }

    public InteropCall send(DynamicMessage request) {
        call.sendMessage(request);
        return this;
    }

    /** Whether the messages sent from now on are compressed (with the call's compressor, when it has one). */
    public InteropCall compressing(boolean compressed) {
        call.setMessageCompression(compressed);
        return this;
    }

    public InteropCall halfClose() {
        call.halfClose();
        return this;
    }

    /** Waits for the next answer (10 s at most). */
    public InteropCall awaitAnswer() throws InterruptedException {
        DynamicMessage answer = answers.poll(10, TimeUnit.SECONDS);
        if (answer == null) {
            throw new AssertionError("no answer within 10 s");
        }
        return this;
    }

    public InteropCall cancel(String why) {
        call.cancel(why, null);
        return this;
    }

    /** How the call ended (waiting 10 s at most). */
    public Outcome outcome() {
        Status status = closed.orTimeout(10, TimeUnit.SECONDS).join();
        return new Outcome(status.getCode(), status.getDescription(), List.copyOf(sizes), null, null);
    }

    /** As {@link #outcome()}, with the echoed metadata. */
    public Outcome echoed() {
        Outcome outcome = outcome();
        Iterable<byte[]> trailing = trailers.getAll(InteropServer.ECHO_TRAILING);
        String initial = headers == null ? null : headers.get(InteropServer.ECHO_INITIAL);
        StringJoiner values = new StringJoiner(",");
        if (trailing != null) {
            trailing.forEach(value -> values.add(HexFormat.of().formatHex(value)));
        }
        return new Outcome(outcome.code(), outcome.message(), outcome.sizes(),
                initial + " " + (trailing == null ? null : values), null);
    }

    /**
     * As {@link #outcome()}, with how the messages of a call {@link #startWired started wired} crossed the wire:
     * {@code "requests <coding>, answers <coding>, as sent"} ({@link WireBytes.AtClient#crossing}).
     */
    public Outcome wired() {
        Outcome outcome = outcome();
        return outcome.crossing(wire.crossing(trailers.get(WireBytes.KEY)));
    }

    @Override
    public void onHeaders(Metadata headers) {
        this.headers = headers;
    }

    @Override
    public void onMessage(DynamicMessage message) {
        sizes.add(size(message));
        answers.add(message);
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
        this.trailers = trailers;
        closed.complete(status);
    }

    private static int size(DynamicMessage message) {
        if (message.getDescriptorForType().findFieldByName("payload") != null) {
            return InteropProtos.payloadSize(message);
        }
        if (message.getDescriptorForType().findFieldByName("aggregated_payload_size") != null) {
            return (Integer) InteropProtos.get(message, "aggregated_payload_size");
        }
        return message.getSerializedSize();
    }
}
