package io.tollgate.gateway.clients;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * The SHA-256 of an API key, as the directory names clients ({@code ClientDigest}) and as its counter keys carry
 * it, worked out once per request on the request's thread with that thread's own digest and buffers: no lock, and
 * nothing allocated for a key of ASCII characters up to {@value #ASCII_MAX} long.
 */
final class Digests {

    static final int BYTES = 32;
    private static final int ASCII_MAX = 256;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {

        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    private Digests() {
    }

    /** One thread's digest and buffers. */
    private static final class Scratch {

        final MessageDigest sha = sha256();
        final byte[] key = new byte[ASCII_MAX];
        final byte[] digest = new byte[BYTES];
    }

    /**
     * The SHA-256 of {@code apiKey}, in this thread's buffer: valid until the thread digests again, so it is read
     * at once and never kept.
     */
    static byte[] of(String apiKey) {
        Scratch s = SCRATCH.get();
        int n = apiKey.length();
        if (n <= ASCII_MAX && ascii(apiKey, s.key)) {
            s.sha.update(s.key, 0, n);
        } else {
            s.sha.update(apiKey.getBytes(StandardCharsets.UTF_8));
        }
        try {
            s.sha.digest(s.digest, 0, BYTES);
        } catch (DigestException e) {
            throw new IllegalStateException("a 32-byte buffer holds a SHA-256", e);
        }
        return s.digest;
    }

    /** The profile of the client whose API key has the SHA-256 {@code d} in {@code table}, or null. */
    static Profile find(ClientTable table, byte[] d) {
        return table.find((long) LONG.get(d, 0), (long) LONG.get(d, 8), (long) LONG.get(d, 16), (long) LONG.get(d, 24));
    }

    /** Writes the 64 hex digits of a digest into {@code out} at {@code at}, as {@link ClientTable#LONGS} longs. */
    static void parseHex(String hex, long[] out, int at) {
        for (int k = 0; k < ClientTable.LONGS; k++) {
            out[at + k] = HexFormat.fromHexDigitsToLong(hex, k * 16, k * 16 + 16);
        }
    }

    private static boolean ascii(String text, byte[] into) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                return false;
            }
            into[i] = (byte) c;
        }
        return true;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
