package io.tollgate.gateway.settle;

import java.util.Optional;
import java.util.function.Supplier;

/** Makes the meter a rule's {@code settle.from} names, one per answer. */
public final class UsageMeters {

    private UsageMeters() {
    }

    /**
     * The whole number in the response header {@code name}: {@link Usage.Absent} without it,
     * {@link Usage.Invalid} when it appears more than once.
     *
     * @throws IllegalArgumentException when {@code name} is not a header name
     */
    public static UsageMeter header(String name) {
        return new HeaderMeter(new SettleSource(SettleSource.Kind.HEADER, name).argument());
    }

    /**
     * The whole number at the RFC 6901 {@code pointer}: in the body read as one JSON document or, for a
     * {@code text/event-stream} answer, in the last event whose data has it (each event's data is a JSON document
     * of its own; {@code [DONE]} has nothing; an event the stream ends without its empty line is discarded).
     * A JSON {@code null} there says nothing. A body that is not JSON counts what was found before its first
     * bad byte, so nothing when the value comes after it; a compressed body ({@code Content-Encoding}) is not
     * read.
     *
     * @throws IllegalArgumentException for a malformed pointer
     */
    public static UsageMeter json(String pointer) {
        return new JsonMeter(JsonPointer.of(pointer));
    }

    /** The number of body bytes of the answer, as relayed. */
    public static UsageMeter responseBytes() {
        return new ResponseBytesMeter();
    }

    /**
     * The meters for a rule's {@code from} text: {@code header:X}, {@code json:/a/b} or {@code response_bytes}.
     * The text is read once; each call of the supplier makes a fresh meter.
     *
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public static Supplier<UsageMeter> parse(String from) {
        SettleSource source = SettleSource.parse(from);
        return switch (source.kind()) {
            case HEADER -> () -> new HeaderMeter(source.argument());
            case JSON -> {
                JsonPointer pointer = JsonPointer.of(source.argument());
                yield () -> new JsonMeter(pointer);
            }
            case RESPONSE_BYTES -> ResponseBytesMeter::new;
        };
    }

    /** What is wrong with a {@code from} text, for the rule validator; empty when it is valid. */
    public static Optional<String> problem(String from) {
        return SettleSource.problem(from);
    }
}
