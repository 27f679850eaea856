package io.tollgate.rules.domain;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one reading of a request path that rules match, routes choose by, and the backend receives (RFC 3986
 * §6.2.2, as Envoy's {@code normalize_path} and {@code merge_slashes}): percent-escapes of unreserved characters
 * decoded, and of the sub-delimiters, {@code :} and {@code @} that a path holds raw with the same meaning (but
 * {@code ;}), the other escapes in upper case, characters a path may not hold raw escaped, dot segments removed
 * (§5.2.4), runs of {@code /} merged. A path that cannot be made canonical safely is refused, never guessed at:
 * an escaped {@code /} or {@code \} (backends disagree on whether it separates segments), a raw {@code \}, an
 * escaped or raw control character, a bad escape, {@code ..} above the root, escapes that are not UTF-8
 * (overlong forms included).
 * <p>
 * A segment's {@code ;} parameters (which Tomcat and Spring strip before routing) stay in {@link #path()} and are
 * left out of {@link #matchPath()}; a segment whose name is {@code .} or {@code ..} is a dot segment whatever its
 * parameters ({@code ..;x} is {@code ..} to Tomcat).
 *
 * @param path the canonical path, forwarded to the backend
 * @param matchPath the canonical path without segment parameters, which rules and routes match
 * @param problem why the path was refused; null when it was not
 */
public record CanonicalPath(String path, String matchPath, String problem) {

    /** The canonical path of {@code raw} (a request path as sent, without its query string). */
    public static CanonicalPath of(String raw) {
        if (raw == null || raw.isEmpty() || raw.charAt(0) != '/') {
            return refused("a path starts with '/'");
        }
        if (plain(raw)) {
            return new CanonicalPath(raw, raw, null); // most requests: already canonical, nothing allocated
        }
        return normalise(raw);
    }

    /** Whether the path was refused. */
    public boolean refused() {
        return problem != null;
    }

    private static CanonicalPath refused(String problem) {
        return new CanonicalPath(null, null, problem);
    }

    /**
     * Whether {@code raw} is canonical as it is: only characters a path holds raw, no escape, no segment
     * parameter, no empty segment but a trailing one, and no dot segment.
     */
    private static boolean plain(String raw) {
        int n = raw.length();
        for (int i = 0; i < n; i++) {
            char c = raw.charAt(i);
            if (c == '/') {
                if (i + 1 < n && (raw.charAt(i + 1) == '/' || (raw.charAt(i + 1) == '.' && dotSegmentAt(raw, i + 1)))) {
                    return false;
                }
            } else if (!RAW[c & 0x7f] || c > 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** Whether a segment of only {@code .} or {@code ..} starts at {@code at}. */
    private static boolean dotSegmentAt(String raw, int at) {
        int end = raw.indexOf('/', at);
        int length = (end < 0 ? raw.length() : end) - at;
        return length == 1 || (length == 2 && raw.charAt(at + 1) == '.');
    }

    private static CanonicalPath normalise(String raw) {
        List<String> segments = new ArrayList<>();
        StringBuilder segment = new StringBuilder();
        ByteBuffer escaped = null; // the bytes of the segment at hand above 0x7f, checked as UTF-8
        int n = raw.length();
        for (int i = 1; i <= n; i++) {
            char c = i < n ? raw.charAt(i) : '/';
            if (c == '/') {
                if (escaped != null && escaped.position() > 0) {
                    if (!utf8(escaped)) {
                        return refused("the bytes of segment '" + segment + "' are not UTF-8");
                    }
                    escaped.clear();
                }
                segments.add(segment.toString());
                segment.setLength(0);
                continue;
            }
            int value = c;
            if (c == '%') {
                value = i + 2 < n ? hex(raw.charAt(i + 1), raw.charAt(i + 2)) : -1;
                if (value < 0) {
                    return refused("'%' at " + i + " does not start an escape of two hex digits");
                }
                if (value == '/' || value == '\\') {
                    return refused("an escaped '" + (char) value + "' (%" + hexOf(value) + ") separates segments to "
                            + "some backends and not to others");
                }
                i += 2;
            } else if (c == '\\') {
                return refused("a '\\' separates segments to some backends and not to others");
            } else if (c == ';') {
                segment.append(c); // a parameter starts: kept, and left out of the match path
                continue;
            }
            if (value < 0x20 || value == 0x7f || (value == ' ' && c != '%')) {
                return refused("a control character or raw space (0x" + hexOf(value) + ")");
            }
            if (value > 0xff) {
                return refused("a character outside ISO-8859-1 in the request line");
            }
            if (value < 0x80 && RAW[value]) {
                // unreserved, or a character a path holds raw with the same meaning: decoding backends read
                // "%3A" as ":", so the two spellings are one
                segment.append((char) value);
            } else {
                // reserved or not allowed raw (a quote, a brace, a byte of UTF-8): escaped, in upper case
                segment.append('%').append(hexOf(value));
                if (value >= 0x80) {
                    escaped = escaped != null ? escaped : ByteBuffer.allocate(n);
                    escaped.put((byte) value);
                }
            }
        }
        return resolve(segments);
    }

    /**
     * Removes dot segments (RFC 3986 §5.2.4) and merges empty segments; a path that ends in a slash, {@code .} or
     * {@code ..} keeps a trailing slash.
     */
    private static CanonicalPath resolve(List<String> segments) {
        List<String> out = new ArrayList<>(segments.size());
        boolean trailing = false;
        for (int k = 0; k < segments.size(); k++) {
            String s = segments.get(k);
            boolean last = k == segments.size() - 1;
            String name = name(s);
            if (s.isEmpty() || name.equals(".") || name.equals("..")) {
                if (name.equals("..")) {
                    if (out.isEmpty()) {
                        return refused("'..' climbs above the root");
                    }
                    out.remove(out.size() - 1);
                }
                trailing = last;
                continue;
            }
            out.add(s);
            trailing = false;
        }
        StringBuilder path = new StringBuilder();
        StringBuilder match = new StringBuilder();
        for (String s : out) {
            path.append('/').append(s);
            match.append('/').append(name(s));
        }
        if (out.isEmpty() || trailing) {
            path.append('/');
            match.append('/');
        }
        return new CanonicalPath(path.toString(), match.toString(), null);
    }

    /** A segment without its parameters. */
    private static String name(String segment) {
        int semicolon = segment.indexOf(';');
        return semicolon < 0 ? segment : segment.substring(0, semicolon);
    }

    private static boolean utf8(ByteBuffer bytes) {
        ByteBuffer view = bytes.duplicate().flip();
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(view);
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static int hex(char high, char low) {
        int h = Character.digit(high, 16);
        int l = Character.digit(low, 16);
        return h < 0 || l < 0 || high > 0x7f || low > 0x7f ? -1 : h * 16 + l;
    }

    private static String hexOf(int value) {
        return new String(new char[]{HEX[(value >> 4) & 0xf], HEX[value & 0xf]});
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /**
     * What a path holds raw with one meaning (RFC 3986 pchar but ';', which starts parameters): unreserved
     * (ALPHA / DIGIT / "-" / "." / "_" / "~"), the other sub-delimiters, ':' and '@'.
     */
    private static final boolean[] RAW = new boolean[128];

    static {
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,=:@".toCharArray()) {
            RAW[c] = true;
        }
    }
}
