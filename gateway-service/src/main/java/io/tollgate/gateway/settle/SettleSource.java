package io.tollgate.gateway.settle;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a settled rule reads what a request used: a rule's {@code settle.from}. Wire form: {@code header:<Name>}
 * (an integer response header), {@code json:<JSON pointer>} (RFC 6901, in a JSON body or the events of a
 * {@code text/event-stream} answer) or {@code response_bytes}.
 * <p>
 * Plain Java, no Vert.x: the rule validator checks a rule's text with {@link #parse}.
 *
 * @param kind
 * where the units come from
 * @param argument
 * the header name for {@link Kind#HEADER}, the JSON pointer for {@link Kind#JSON}, {@code null} for
 * {@link Kind#RESPONSE_BYTES}
 */
public record SettleSource(Kind kind, String argument) {

    /** Where the units come from. */
    public enum Kind {
        /** A response header holding a whole number. */
        HEADER,
        /** The whole number at a JSON pointer in the body, or in the last event that has it. */
        JSON,
        /** The number of body bytes of the answer. */
        RESPONSE_BYTES
    }

    private static final String HEADER_PREFIX = "header:";
    private static final String JSON_PREFIX = "json:";
    private static final String RESPONSE_BYTES = "response_bytes";
    private static final String FORMS = "header:<Name>, json:<JSON pointer> or response_bytes";
    /** An RFC 9110 field name: a token. */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /** @throws IllegalArgumentException naming what is wrong with the argument */
    public SettleSource {
        Objects.requireNonNull(kind, "kind");
        switch (kind) {
            case HEADER -> {
                if (argument == null || !HEADER_NAME.matcher(argument).matches()) {
                    throw new IllegalArgumentException("not a header name: \"" + argument + "\"");
                }
            }
            case JSON -> pointerSegments(Objects.requireNonNull(argument, "a JSON pointer"));
            case RESPONSE_BYTES -> {
                if (argument != null) {
                    throw new IllegalArgumentException("response_bytes takes no argument");
                }
            }
        }
    }

    /**
     * The source a rule's {@code from} text names.
     *
     * @throws IllegalArgumentException naming what is wrong, e.g. an unknown form or a malformed pointer
     */
    public static SettleSource parse(String from) {
        if (from == null) {
            throw new IllegalArgumentException("missing: expected " + FORMS);
        }
        if (from.startsWith(HEADER_PREFIX)) {
            return new SettleSource(Kind.HEADER, from.substring(HEADER_PREFIX.length()));
        }
        if (from.startsWith(JSON_PREFIX)) {
            return new SettleSource(Kind.JSON, from.substring(JSON_PREFIX.length()));
        }
        if (from.equals(RESPONSE_BYTES)) {
            return new SettleSource(Kind.RESPONSE_BYTES, null);
        }
        throw new IllegalArgumentException("\"" + from + "\" is none of " + FORMS);
    }

    /** What is wrong with a {@code from} text, in words a user can act on; empty when it is valid. */
    public static Optional<String> problem(String from) {
        try {
            parse(from);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }

    /**
     * The reference tokens of an RFC 6901 JSON pointer, unescaped ({@code ~1} is {@code /}, {@code ~0} is
     * {@code ~}): {@code /choices/0/a~1b} gives {@code choices}, {@code 0}, {@code a/b}. The empty pointer names
     * the whole document and has none.
     *
     * @throws IllegalArgumentException when the pointer is malformed
     */
    public static List<String> pointerSegments(String pointer) {
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

    /** The wire form, e.g. {@code header:X-Usage-Tokens} or {@code json:/usage/total_tokens}. */
    public String wire() {
        return switch (kind) {
            case HEADER -> HEADER_PREFIX + argument;
            case JSON -> JSON_PREFIX + argument;
            case RESPONSE_BYTES -> RESPONSE_BYTES;
        };
    }

    @Override
    public String toString() {
        return wire();
    }
}
