package io.tollgate.rules.http;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

import io.tollgate.rules.domain.FieldError;

/**
 * Query parameters of paged reads: an opaque cursor (where the last page ended) and a limit in bounds; a bad one
 * is a 400 naming it.
 */
public final class Paging {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private Paging() {
    }

    /** The cursor that continues after {@code last}; {@code null} when there is nothing after. */
    public static String cursor(String last) {
        return last == null ? null : ENCODER.encodeToString(last.getBytes(StandardCharsets.UTF_8));
    }

    /** Where a page asked for with {@code cursor} starts after ({@code ""} without one). */
    public static String after(String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            return "";
        }
        try {
            return new String(DECODER.decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad("cursor", cursor, "is not a cursor this service gave out");
        }
    }

    /** {@code given}, or {@code fallback} when absent; within 1..{@code max}. */
    public static int limit(String name, String given, int fallback, int max) {
        return (int) whole(name, given, fallback, 1, max);
    }

    /** {@code given} as a whole number within {@code min..max}, or {@code fallback} when absent. */
    public static long whole(String name, String given, long fallback, long min, long max) {
        if (given == null || given.isEmpty()) {
            return fallback;
        }
        try {
            long value = Long.parseLong(given.trim());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw bad(name, given, "must be a whole number from " + min + " to " + max);
    }

    /**
     * The {@code digest} parameters of a lookup by digest: each the 64 lowercase hex digits of a SHA-256, at most
     * {@code max} of them, and not with {@code tenant} or {@code cursor} (a lookup is one page); else 400 naming
     * the parameter.
     */
    public static List<String> digests(List<String> given, String tenant, String cursor, int max) {
        if (tenant != null || cursor != null) {
            throw bad("digest", null, "looks clients up by digest: not with tenant or cursor");
        }
        if (given.size() > max) {
            throw bad("digest", null, "may be given at most " + max + " times, was " + given.size());
        }
        for (String digest : given) {
            if (digest == null || !DIGEST.matcher(digest).matches()) {
                throw bad("digest", digest, "must be the 64 lowercase hex digits of a SHA-256");
            }
        }
        return given;
    }

    private static final Pattern DIGEST = Pattern.compile("[0-9a-f]{64}");

    private static ProblemException bad(String field, String value, String reason) {
        return new ProblemException(new Problem("bad-request", "Bad query parameter", 400,
                field + " " + reason, List.of(new FieldError(field, value, reason))));
    }
}
