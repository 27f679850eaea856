package io.tollgate.gateway.usage;

/**
 * Reads past the header of a gzip member (RFC 1952, section 2.3) as its bytes come, split anywhere: the ten fixed
 * bytes, then the optional extra field, name, comment and header CRC its flags announce. The JDK's
 * {@link java.util.zip.GZIPInputStream} reads the header too, but only from a blocking stream; the deflate data
 * after it goes to a raw {@link java.util.zip.Inflater}.
 */
final class GzipHeader {

    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final int RESERVED = 0xE0;

    // What the next byte is.
    private static final int FIXED = 0;
    private static final int EXTRA_LENGTH = 1;
    private static final int EXTRA = 2;
    private static final int NAME = 3;
    private static final int COMMENT = 4;
    private static final int CRC = 5;
    private static final int DONE = 6;
    private static final int BAD = 7;

    private int state = FIXED;
    private int flags;
    /** Bytes read of the current part (fixed bytes, extra length, CRC); what is left of the extra field. */
    private int count;

    /** Reads header bytes from {@code bytes[from]}; returns where the header ended, or {@code to} if it did not. */
    int read(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && state != DONE && state != BAD) {
            next(bytes[i++] & 0xFF);
        }
        return i;
    }

    /** The header was read whole. */
    boolean done() {
        return state == DONE;
    }

    /** The bytes are no gzip header: the wrong magic, method or reserved flags. */
    boolean bad() {
        return state == BAD;
    }

    private void next(int b) {
        switch (state) {
            case FIXED -> fixed(b);
            case EXTRA_LENGTH -> {
                count = count == 0 ? b | 0x10000 : (count & 0xFF) | b << 8;
                if (count <= 0xFFFF) {
                    state = count == 0 ? afterExtra() : EXTRA;
                }
            }
            case EXTRA -> {
                if (--count == 0) {
                    state = afterExtra();
                }
            }
            case NAME -> {
                if (b == 0) {
                    state = afterName();
                }
            }
            case COMMENT -> {
                if (b == 0) {
                    state = afterComment();
                }
            }
            case CRC -> {
                if (++count == 2) {
                    state = DONE;
                }
            }
            default -> {
            }
        }
    }

    /** ID1, ID2, CM (8: deflate), FLG, MTIME (4), XFL, OS. */
    private void fixed(int b) {
        boolean fits = switch (count) {
            case 0 -> b == 0x1F;
            case 1 -> b == 0x8B;
            case 2 -> b == 8;
            case 3 -> (b & RESERVED) == 0;
            default -> true;
        };
        if (!fits) {
            state = BAD;
            return;
        }
        if (count == 3) {
            flags = b;
        }
        if (++count == 10) {
            count = 0;
            state = (flags & FEXTRA) != 0 ? EXTRA_LENGTH : afterExtra();
        }
    }

    private int afterExtra() {
        count = 0;
        return (flags & FNAME) != 0 ? NAME : afterName();
    }

    private int afterName() {
        return (flags & FCOMMENT) != 0 ? COMMENT : afterComment();
    }

    private int afterComment() {
        count = 0;
        return (flags & FHCRC) != 0 ? CRC : DONE;
    }
}
