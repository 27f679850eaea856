package io.tollgate.rules.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * A console login.
 *
 * @param id
 * what the cookie carries: 256 random bits, base64url
 * @param actor
 * the name of the admin token that logged in, recorded in the history of every write made through it
 * @param csrfToken
 * what every write made with the cookie must also carry in {@code X-CSRF-Token}: a page of the console has
 * it, another site's page cannot read it
 */
public record Session(String id, String actor, String csrfToken) {

    /** Whether {@code presented} is this session's CSRF token, compared in constant time. */
    public boolean csrfMatches(String presented) {
        return presented != null && MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8),
                csrfToken.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        // never the id or the token, should a session ever reach a log line
        return "Session[actor=" + actor + "]";
    }
}
