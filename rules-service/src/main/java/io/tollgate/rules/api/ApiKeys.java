package io.tollgate.rules.api;

import java.nio.charset.StandardCharsets;

import io.tollgate.rules.domain.ClientDigest;

/**
 * An API key as it arrives in a path: digested at once, the only thing done with it. The key is never logged,
 * stored or answered, and a problem about it never shows it.
 */
final class ApiKeys {

    /** The longest API key accepted, in UTF-8 bytes. */
    static final int MAX_KEY_BYTES = 4096;

    private ApiKeys() {
    }

    /** The digest of {@code key}; 404 for an empty key, 414 for one longer than {@link #MAX_KEY_BYTES}. */
    static String digest(String key) {
        if (key == null || key.isEmpty()) {
            throw new ProblemException(missing());
        }
        if (key.length() > MAX_KEY_BYTES || key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new ProblemException(new Problem("uri-too-long", "API key too long", 414,
                    "an API key may be at most " + MAX_KEY_BYTES + " bytes; nothing was changed"));
        }
        return ClientDigest.of(key);
    }

    static Problem missing() {
        return new Problem("not-found", "No API key", 404, "the path names no API key: /api/v1/clients/{api-key}");
    }
}
