package io.tollgate.rules.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.FieldError;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;

/**
 * An API key as it arrives in the {@code X-API-Key} header, the header a client sends it to a gateway in: digested
 * at once, the only thing done with it. The key never travels in a URL (access logs and proxies keep URLs), is
 * never logged, stored or answered, and a problem about it never shows it.
 */
public final class ApiKeys {

    /** The header that carries a client's API key to the calls by key. */
    public static final String HEADER = "X-API-Key";
    /** The longest API key accepted, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 4096;
    /** The query parameter that would carry an API key. */
    private static final String API_KEY_PARAM = "api_key";
    /** The prefix of a query parameter that would carry a {@code header:} key's value. */
    private static final String HEADER_PARAM = "header.";
    /** Where a key goes instead of a URL, for the problems that say so. */
    static final String WHERE = "send it in the " + HEADER + " header to /api/v1/clients/key, or name the client"
            + " by the SHA-256 (hex) of its key: /api/v1/clients/digest/{sha256}";

    private ApiKeys() {
    }

    /**
     * The digest of the key in the {@code X-API-Key} header; 400 naming the header when it is missing or empty,
     * 431 for one longer than {@link #MAX_KEY_BYTES}.
     */
    public static String digest(String key) {
        if (key == null || key.isEmpty()) {
            throw new ProblemException(new Problem("validation-failed", "No API key", 400,
                    "the " + HEADER + " header carries the client's API key: " + WHERE,
                    List.of(new FieldError(HEADER, null, "required: the client's API key"))));
        }
        if (key.length() > MAX_KEY_BYTES || key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new ProblemException(new Problem("header-too-large", "API key too long", 431,
                    "an API key may be at most " + MAX_KEY_BYTES + " bytes; nothing was changed"));
        }
        return ClientDigest.of(key);
    }

    /** The answer to {@code /api/v1/clients/}: a path that names no client. */
    public static Problem missing() {
        return new Problem("not-found", "No client named", 404, "the path names no client: " + WHERE);
    }

    /**
     * The refusal of a client key in the query ({@code api_key=}, {@code header.<Name>=}), naming each such parameter and where
     * its key goes, never repeating it; null
     * when the query holds none. No endpoint of this service takes a key in its query, so every call is checked
     * ({@code AccessCheck}).
     */
    public static ProblemException inQuery(RoutingContext ctx) {
        MultiMap params;
        try {
            params = ctx.queryParams();
        } catch (HttpException undecodable) {
            // a query no one can read may hold a key as well as anything else
            return new ProblemException(new Problem("bad-query", "Query string not decodable", 400,
                    "the query string has a bad percent-escape; nothing was changed"));
        }
        List<FieldError> inUrl = new ArrayList<>(1);
        for (String name : params.names()) {
            if (name.equals(API_KEY_PARAM) || name.startsWith(HEADER_PARAM)) {
                inUrl.add(new FieldError(name, null, "a client key does not go in a URL: send it in the header"
                        + " the gateway counts it by (" + HEADER + " for an API key, the rule's own header for a"
                        + " header: key)"));
            }
        }
        if (inUrl.isEmpty()) {
            return null;
        }
        return new ProblemException(new Problem("key-in-url", "Client key in the URL", 400,
                "a client key does not go in a URL, where access logs keep it: send it in the header it is counted"
                        + " by, as the client sends it; nothing was changed",
                inUrl));
    }

    /** The refusal of a raw key in a path: where it goes instead; the key itself is never repeated. */
    public static ProblemException inUrl() {
        return new ProblemException(new Problem("key-in-url", "API key in the URL", 400,
                "an API key does not go in a URL, where access logs keep it: " + WHERE + "; nothing was changed",
                List.of(new FieldError("key", null, "not in the path: " + WHERE))));
    }
}
