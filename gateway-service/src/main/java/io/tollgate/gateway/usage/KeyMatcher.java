package io.tollgate.gateway.usage;

/**
 * Compares an object key, decoded as it comes, with one segment of a JSON pointer, both as UTF-8 bytes. A key
 * arrives as bytes sent as they are and characters from escapes; a {@code \\u} surrogate pair makes one character,
 * and a lone surrogate matches no segment (a pointer is valid Unicode).
 */
final class KeyMatcher {

    private byte[] segment;
    /** Bytes of the key equal to the segment's so far; -1 once they differ. */
    private int matched;
    private char highSurrogate;

    /** A key starts; {@code segment} null when the key is compared with nothing. */
    void start(byte[] segment) {
        this.segment = segment;
        matched = 0;
        highSurrogate = 0;
    }

    /** Whether the key read since {@link #start} is the segment, whole. */
    boolean matches() {
        return segment != null && highSurrogate == 0 && matched == segment.length;
    }

    /** A character of the key from a {@code \\u} escape, a UTF-16 code unit. */
    void escaped(char unit) {
        if (Character.isHighSurrogate(unit)) {
            if (highSurrogate != 0) {
                matched = -1;
            }
            highSurrogate = unit;
        } else if (Character.isLowSurrogate(unit)) {
            if (highSurrogate == 0) {
                matched = -1;
            } else {
                int codePoint = Character.toCodePoint(highSurrogate, unit);
                highSurrogate = 0;
                codePoint(codePoint);
            }
        } else {
            codePoint(unit);
        }
    }

    private void codePoint(int codePoint) {
        if (codePoint < 0x80) {
            utf8(codePoint);
        } else if (codePoint < 0x800) {
            utf8(0xC0 | codePoint >> 6);
            utf8(0x80 | codePoint & 0x3F);
        } else if (codePoint < 0x10000) {
            utf8(0xE0 | codePoint >> 12);
            utf8(0x80 | codePoint >> 6 & 0x3F);
            utf8(0x80 | codePoint & 0x3F);
        } else {
            utf8(0xF0 | codePoint >> 18);
            utf8(0x80 | codePoint >> 12 & 0x3F);
            utf8(0x80 | codePoint >> 6 & 0x3F);
            utf8(0x80 | codePoint & 0x3F);
        }
    }

    /**
     * Reads the key's bytes sent as they are, from {@code from} to the first quote, backslash or control byte (which
     * the scanner reads itself) or {@code to}; returns where it stopped.
     */
    int plain(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            byte b = bytes[i];
            if (b == '"' || b == '\\' || b >= 0 && b < 0x20) {
                break;
            }
            utf8(b);
            i++;
        }
        return i;
    }

    /** The next byte of the key in UTF-8: a byte as sent, or one of an escaped character. */
    void utf8(int b) {
        if (highSurrogate != 0) {
            highSurrogate = 0;
            matched = -1; // a high surrogate not followed by its low one
        }
        if (segment == null || matched < 0) {
            return;
        }
        matched = matched < segment.length && segment[matched] == (byte) b ? matched + 1 : -1;
    }
}
