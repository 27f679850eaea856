package io.tollgate.rules.http;

import jakarta.ws.rs.core.Response;

import io.tollgate.rules.store.IfMatch;

/** Versions as strong entity tags: version 7 is {@code "7"}. */
public final class ETags {

    private ETags() {
    }

    public static String of(long version) {
        return "\"" + version + "\"";
    }

    /** 200 with {@code entity} and its tag, or 304 when {@code ifNoneMatch} names {@code version}. */
    public static Response read(String ifNoneMatch, long version, Object entity) {
        Response.ResponseBuilder answer = noneMatchHits(ifNoneMatch, version)
                ? Response.notModified()
                : Response.ok(entity);
        return answer.header(Headers.ETAG, of(version)).build();
    }

    /** 201 (created) or 200 with {@code entity} and its tag: the answer of a PUT. */
    public static Response written(boolean created, long version, Object entity) {
        return Response.status(created ? 201 : 200).header(Headers.ETAG, of(version)).entity(entity).build();
    }

    /** The version a strong tag names ({@code "7"} is 7), or -1 when {@code tag} is absent or names none. */
    public static long version(String tag) {
        if (tag == null || tag.length() < 3 || !tag.startsWith("\"") || !tag.endsWith("\"")) {
            return -1;
        }
        try {
            return Long.parseLong(tag.substring(1, tag.length() - 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether an {@code If-None-Match} header names {@code version} (or is {@code *}). */
    public static boolean noneMatchHits(String header, long version) {
        if (header == null) {
            return false;
        }
        String wanted = of(version);
        for (String tag : header.split(",")) {
            String t = tag.trim();
            if (t.equals("*") || t.equals(wanted) || t.equals("W/" + wanted)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The precondition of an {@code If-Match} header; {@code null} without one. A tag that is not a
     * version can never match, so it fails the precondition (412) rather than being ignored.
     */
    public static IfMatch ifMatch(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String t = header.trim();
        if (t.equals("*")) {
            return new IfMatch(true, 0);
        }
        if (t.length() > 2 && t.startsWith("\"") && t.endsWith("\"")) {
            try {
                return new IfMatch(false, Long.parseLong(t.substring(1, t.length() - 1)));
            } catch (NumberFormatException e) {
                return new IfMatch(false, -1);
            }
        }
        return new IfMatch(false, -1);
    }
}
