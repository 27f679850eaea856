package io.tollgate.gateway.usage;

import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Decompresses a {@code gzip} or {@code deflate} body as its bytes come and hands the result to the scanner of the
 * content, a slice of a few kilobytes at a time: nothing is held whole, and the decompressed bytes are bounded. An
 * answer that decompresses to more than the bound (a zip bomb) is read no further and has no usage; so has one that
 * is not valid in its coding.
 * <p>
 * {@code gzip}: one member after another, each a header ({@link GzipHeader}), raw deflate data and an eight-byte
 * trailer, which is skipped (the client checks the CRC of what it receives); bytes after a member that start no
 * other end the content, as {@link java.util.zip.GZIPInputStream} reads them. {@code deflate}: the zlib format
 * HTTP names, or raw deflate data, as some servers send it, told apart by the zlib header's check bits.
 */
final class Inflating implements ByteScanner {

    /** Each event-loop thread's array the decompressed bytes go through on their way to the scanner. */
    private static final ThreadLocal<byte[]> OUTPUT = ThreadLocal.withInitial(() -> new byte[8192]);
    private static final int GZIP_TRAILER = 8;

    // Where the decoder is in the body.
    private static final int HEADER = 0;
    private static final int DATA = 1;
    private static final int TRAILER = 2;
    private static final int FINISHED = 3;
    private static final int FAILED = 4;

    private final ByteScanner content;
    private final String coding;
    private final boolean gzip;
    private final long maxDecodedBytes;
    private int state = HEADER;
    private GzipHeader header;
    /** {@code deflate}: the zlib header's first byte while its second has not come, else -1. */
    private int firstByte = -1;
    private int trailerLeft;
    /** {@code gzip}: members read to their end. */
    private int members;
    private Inflater inflater;
    private long decoded;
    private Usage failure;

    private Inflating(ByteScanner content, String coding, boolean gzip, long maxDecodedBytes) {
        this.content = content;
        this.coding = coding;
        this.gzip = gzip;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    /** A {@code gzip} (or {@code x-gzip}) body whose content goes to {@code content}. */
    static Inflating gzip(ByteScanner content, String coding, long maxDecodedBytes) {
        return new Inflating(content, coding, true, maxDecodedBytes);
    }

    /** A {@code deflate} body whose content goes to {@code content}. */
    static Inflating deflate(ByteScanner content, String coding, long maxDecodedBytes) {
        return new Inflating(content, coding, false, maxDecodedBytes);
    }

    @Override
    public void feed(byte[] bytes, int from, int to) {
        int at = from;
        while (at < to && state != FINISHED && state != FAILED) {
            at = switch (state) {
                case HEADER -> gzip ? gzipHeader(bytes, at, to) : zlibOrRaw(bytes, at);
                case DATA -> inflate(bytes, at, to);
                default -> trailer(at, to);
            };
        }
    }

    @Override
    public Usage end() {
        close();
        return failure != null ? failure : content.end();
    }

    @Override
    public void close() {
        if (inflater != null) {
            inflater.end(); // its native memory goes now, not when the collector gets to it
            inflater = null;
        }
    }

    private int gzipHeader(byte[] bytes, int from, int to) {
        if (header == null) {
            header = new GzipHeader();
        }
        int at = header.read(bytes, from, to);
        if (header.bad() && members > 0) {
            state = FINISHED;
        } else if (header.bad()) {
            fail("not " + coding + ": no gzip header");
        } else if (header.done()) {
            header = null;
            start(true);
        }
        return at;
    }

    /** The first two bytes of a {@code deflate} body: a zlib header when its check bits say so (RFC 1950). */
    private int zlibOrRaw(byte[] bytes, int at) {
        int b = bytes[at] & 0xFF;
        if (firstByte < 0) {
            firstByte = b;
            return at + 1;
        }
        boolean zlib = (firstByte & 0x0F) == 8 && (firstByte << 8 | b) % 31 == 0;
        start(!zlib);
        byte[] first = {(byte) firstByte};
        firstByte = -1;
        inflate(first, 0, 1);
        return at;
    }

    private void start(boolean raw) {
        if (inflater == null) {
            inflater = new Inflater(raw);
        } else {
            inflater.reset();
        }
        state = DATA;
    }

    /** Decompresses {@code bytes[from..to)}, a slice at a time; returns where the compressed data ended, or to. */
    private int inflate(byte[] bytes, int from, int to) {
        inflater.setInput(bytes, from, to - from);
        byte[] out = OUTPUT.get();
        while (true) {
            int n;
            try {
                n = inflater.inflate(out);
            } catch (DataFormatException e) {
                fail("not valid " + coding + ": " + e.getMessage());
                return to;
            }
            if (n > 0) {
                decoded += n;
                if (decoded > maxDecodedBytes) {
                    fail("more than tollgate.settle.max-decoded-size (" + maxDecodedBytes + " bytes) once"
                            + " decompressed: not read further");
                    return to;
                }
                content.feed(out, 0, n);
            }
            if (inflater.finished()) {
                int rest = inflater.getRemaining();
                trailerLeft = GZIP_TRAILER;
                state = gzip ? TRAILER : FINISHED;
                return to - rest;
            }
            if (n == 0) {
                if (!inflater.needsInput()) {
                    fail("not valid " + coding + ": a preset dictionary is needed");
                }
                return to;
            }
        }
    }

    /** Skips a gzip member's CRC-32 and size; another member may follow. */
    private int trailer(int from, int to) {
        int skipped = Math.min(trailerLeft, to - from);
        trailerLeft -= skipped;
        if (trailerLeft == 0) {
            members++;
            state = HEADER;
        }
        return from + skipped;
    }

    private void fail(String why) {
        state = FAILED;
        failure = new Usage.Invalid(coding, why);
        close();
    }
}
