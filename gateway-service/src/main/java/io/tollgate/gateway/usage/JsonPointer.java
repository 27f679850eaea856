package io.tollgate.gateway.usage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An RFC 6901 JSON pointer made ready for matching bytes: each segment's UTF-8 bytes, and its value as an array
 * index ({@code 0} or digits without a leading zero), -1 when it is none. Shared by the meters of one rule.
 */
record JsonPointer(byte[][] segments, long[] indices) {

    /** @throws IllegalArgumentException when {@code text} is not a JSON pointer */
    static JsonPointer of(String text) {
        List<String> parts = segments(text);
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

    /**
     * The reference tokens of an RFC 6901 JSON pointer, unescaped ({@code ~1} is {@code /}, {@code ~0} is
     * {@code ~}): {@code /choices/0/a~1b} gives {@code choices}, {@code 0}, {@code a/b}. The empty pointer names
     * the whole document and has none.
     *
     * @throws IllegalArgumentException when the pointer is malformed
     */
    static List<String> segments(String pointer) {
        if (pointer.isEmpty()) {
            return List.of();
        }
        if (pointer.charAt(0) != '/') {
            throw new IllegalArgumentException("JSON pointer \"" + pointer + "\" must start with \"/\"");
        }
        if (!StandardCharsets.UTF_8.newEncoder().canEncode(pointer)) {
            throw new IllegalArgumentException("JSON pointer \"" + pointer + "\" is not valid Unicode");
        }
        List<String> segments = new ArrayList<>();
        StringBuilder segment = new StringBuilder();
        for (int i = 1; i <= pointer.length(); i++) {
            char c = i < pointer.length() ? pointer.charAt(i) : '/';
            if (c == '/') {
                segments.add(segment.toString());
                segment.setLength(0);
            } else if (c != '~') {
                segment.append(c);
            } else if (i + 1 < pointer.length() && (pointer.charAt(i + 1) == '0' || pointer.charAt(i + 1) == '1')) {
                segment.append(pointer.charAt(++i) == '0' ? '~' : '/');
            } else {
                throw new IllegalArgumentException(
                        "JSON pointer \"" + pointer + "\" has a \"~\" not followed by 0 or 1 (write ~0 for ~, ~1 for /)");
            }
        }
        return segments;
    }
}
