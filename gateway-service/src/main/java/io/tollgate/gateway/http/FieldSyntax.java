package io.tollgate.gateway.http;

import java.util.Map;

import io.vertx.core.MultiMap;

/**
 * RFC 9113 §8.2.1: the characters an HTTP/2 request's field names and values may hold. HPACK carries any byte, and
 * Netty lets through what this forbids (only upper case in a name and pseudo-headers are its own checks), so a name
 * with a space or a colon, or a value with CR, LF or NUL, would otherwise reach the backend's connection, or fail the
 * gateway's encoding of the request to it. Such a request is malformed: the client's fault, refused before any rule.
 * What is told of it names the rule broken and the character by its code, never the bytes sent.
 */
final class FieldSyntax {

    private FieldSyntax() {
    }

    /** What is wrong with {@code headers} (an HTTP/2 request's), or null when every name and value is well formed. */
    static String problem(MultiMap headers) {
        for (Map.Entry<String, String> field : headers) {
            String name = field.getKey();
            if (name.isEmpty()) {
                return "a header has an empty name (RFC 9113 §8.2.1)";
            }
            if (name.charAt(0) == ':') {
                continue; // a pseudo-header: Netty's to check, and the request is read from them
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c <= 0x20 || c >= 0x7f || c == ':' || c >= 'A' && c <= 'Z') {
                    return "a header name holds " + shown(c) + ", which RFC 9113 §8.2.1 forbids in a field name";
                }
            }
            String value = field.getValue();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == 0 || c == '\n' || c == '\r') {
                    return "the value of " + name + " holds " + shown(c) + ", which RFC 9113 §8.2.1 forbids in a "
                            + "field value";
                }
            }
            if (!value.isEmpty() && (blank(value.charAt(0)) || blank(value.charAt(value.length() - 1)))) {
                return "the value of " + name + " starts or ends with whitespace, which RFC 9113 §8.2.1 forbids";
            }
        }
        return null;
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    /** A character by its code, with the name of the usual ones: never the character itself. */
    private static String shown(char c) {
        String code = String.format("0x%02x", (int) c);
        return switch (c) {
            case 0 -> "NUL (" + code + ")";
            case '\n' -> "LF (" + code + ")";
            case '\r' -> "CR (" + code + ")";
            case ' ' -> "a space (" + code + ")";
            case ':' -> "a colon (" + code + ")";
            default -> c >= 'A' && c <= 'Z' ? "an upper-case letter (" + code + ")" : code;
        };
    }
}
