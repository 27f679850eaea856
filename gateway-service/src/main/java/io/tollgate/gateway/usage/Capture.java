package io.tollgate.gateway.usage;

import java.nio.charset.StandardCharsets;

/** The first bytes of the JSON value at the pointer, as written, and what they say was used. */
final class Capture {

    static final int MAX_BYTES = Usage.Invalid.MAX_VALUE_CHARS;

    private final byte[] bytes = new byte[MAX_BYTES];
    private int length;
    private boolean cut;

    /** A value starts with {@code first}. */
    void start(byte first) {
        length = 0;
        cut = false;
        add(first);
    }

    void add(byte b) {
        if (length < MAX_BYTES) {
            bytes[length++] = b;
        } else {
            cut = true;
        }
    }

    /** The value ended: a number of plain digits that fits a long is used; null is nothing; the rest is invalid. */
    Usage usage() {
        String text = new String(bytes, 0, length, StandardCharsets.UTF_8);
        return switch (bytes[0]) {
            case '"' -> new Usage.Invalid(text, "a string, not a number");
            case '{' -> new Usage.Invalid(text, "an object, not a number");
            case '[' -> new Usage.Invalid(text, "an array, not a number");
            case 't', 'f' -> new Usage.Invalid(text, "a boolean, not a number");
            case 'n' -> Usage.ABSENT;
            default -> cut
                    ? new Usage.Invalid(text, "a number longer than " + MAX_BYTES + " characters")
                    : WholeNumbers.read(text);
        };
    }
}
