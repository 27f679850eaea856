package io.tollgate.gateway.http;

import java.util.Locale;
import java.util.Set;

/**
 * Methods are case-sensitive tokens (RFC 9110 §9.1): {@code post} is not {@code POST}. A rule for {@code POST}
 * does not match {@code post}, while a backend that reads methods case-insensitively serves it as a POST, so a
 * standard method spelled in another case is refused; other methods pass as they are.
 */
final class Methods {

    private static final Set<String> STANDARD = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
            "TRACE", "PATCH");

    private Methods() {
    }

    /** Whether {@code method} is a standard method in a case other than its own. */
    static boolean misspelled(String method) {
        if (STANDARD.contains(method)) {
            return false; // most requests: one hash look-up
        }
        String upper = method.toUpperCase(Locale.ROOT);
        return !upper.equals(method) && STANDARD.contains(upper);
    }
}
