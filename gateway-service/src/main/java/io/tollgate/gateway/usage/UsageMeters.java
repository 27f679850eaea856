package io.tollgate.gateway.usage;

import java.util.function.Supplier;

import io.tollgate.rules.domain.Settle;

/**
 * Makes the usage meter a rule's {@code settle.from} names, one per answer: what a request used, read from its
 * answer. What the request then owes the store is its settlement ({@code limiter.settlement}), not a meter's.
 */
public final class UsageMeters {

    /** The default of {@code tollgate.settle.max-decoded-size}: 64 MiB. */
    public static final long MAX_DECODED_BYTES = 64L * 1024 * 1024;

    private UsageMeters() {
    }

    /**
     * The whole number in the response header {@code name}: {@link Usage.Absent} without it,
     * {@link Usage.Invalid} when it appears more than once.
     */
    public static UsageMeter header(String name) {
        return new HeaderMeter(name);
    }

    /**
     * The whole number at the RFC 6901 {@code pointer}: in the body read as one JSON document or, for a
     * {@code text/event-stream} answer, in the last event whose data has it (each event's data is a JSON document
     * of its own; {@code [DONE]} has nothing; an event the stream ends without its empty line is discarded).
     * A JSON {@code null} there says nothing. A body that is not JSON counts what was found before its first
     * bad byte, so nothing when the value comes after it. A {@code gzip} or {@code deflate} body is read as it
     * decompresses, up to {@link #MAX_DECODED_BYTES}; past them, or in another coding, it is {@link Usage.Invalid}.
     *
     * @throws IllegalArgumentException for a malformed pointer
     */
    public static UsageMeter json(String pointer) {
        return json(pointer, MAX_DECODED_BYTES);
    }

    /** As {@link #json(String)}, a compressed body read up to {@code maxDecodedBytes} once decompressed. */
    public static UsageMeter json(String pointer, long maxDecodedBytes) {
        return new JsonMeter(JsonPointer.of(pointer), maxDecodedBytes);
    }

    /** The number of body bytes of the answer, as relayed (compressed when the backend compressed them). */
    public static UsageMeter responseBytes() {
        return new ResponseBytesMeter();
    }

    /**
     * The meters of what {@code settle} names ({@code header:X}, {@code json:/a/b} or {@code response_bytes}): the
     * text is read once; each call of the supplier makes a fresh meter for one answer. A compressed body is read
     * up to {@link #MAX_DECODED_BYTES} once decompressed.
     *
     * @throws IllegalArgumentException when the pointer is malformed (the rule validator refuses such a rule)
     */
    public static Supplier<UsageMeter> of(Settle settle) {
        return of(settle, MAX_DECODED_BYTES);
    }

    /** As {@link #of(Settle)}, a compressed body read up to {@code maxDecodedBytes} once decompressed. */
    public static Supplier<UsageMeter> of(Settle settle, long maxDecodedBytes) {
        return switch (settle.source()) {
            case HEADER -> {
                String name = settle.argument();
                yield () -> new HeaderMeter(name);
            }
            case JSON -> {
                JsonPointer pointer = JsonPointer.of(settle.argument());
                yield () -> new JsonMeter(pointer, maxDecodedBytes);
            }
            case RESPONSE_BYTES -> ResponseBytesMeter::new;
        };
    }
}
