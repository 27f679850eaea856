package io.tollgate.gateway.store;

import java.nio.charset.StandardCharsets;

/**
 * The Redis Cluster hash slot of a key, as the cluster specification defines it: CRC16 (XMODEM: polynomial
 * 0x1021, initial value 0) of the key's bytes, or of its hash tag (the bytes between the first {@code {} and
 * the first {@code }} after it, when that is not empty), modulo 16,384. Written here because the Vert.x
 * Redis client keeps its own in an internal package.
 */
final class HashSlot {

    static final int SLOTS = 16_384;
    private static final int[] TABLE = new int[256];

    static {
        for (int b = 0; b < 256; b++) {
            int crc = b << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[b] = crc & 0xFFFF;
        }
    }

    private HashSlot() {
    }

    /** The slot of {@code key} (its UTF-8 bytes). */
    static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc & (SLOTS - 1);
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
