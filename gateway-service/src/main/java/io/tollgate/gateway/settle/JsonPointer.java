package io.tollgate.gateway.settle;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An RFC 6901 JSON pointer made ready for matching bytes: each segment's UTF-8 bytes, and its value as an array
 * index ({@code 0} or digits without a leading zero), -1 when it is none. Shared by the meters of one rule.
 */
record JsonPointer(byte[][] segments, long[] indices) {

    /** @throws IllegalArgumentException when {@code text} is not a JSON pointer */
    static JsonPointer of(String text) {
        List<String> parts = SettleSource.pointerSegments(text);
        byte[][] segments = new byte[parts.size()][];
        long[] indices = new long[parts.size()];
        for (int i = 0; i < segments.length; i++) {
            segments[i] = parts.get(i).getBytes(StandardCharsets.UTF_8);
            indices[i] = arrayIndex(parts.get(i));
        }
        return new JsonPointer(segments, indices);
    }

    private static long arrayIndex(String segment) {
        // digits enough for any array a body could hold, few enough for a long
        if (segment.isEmpty() || segment.length() > 18 || segment.length() > 1 && segment.charAt(0) == '0') {
            return -1;
        }
        for (int i = 0; i < segment.length(); i++) {
            if (segment.charAt(i) < '0' || segment.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(segment);
    }
}
