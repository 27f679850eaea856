package io.tollgate.rules.domain;

import java.util.List;

/**
 * Reads the {@code Authorization} header of a call as both services accept it: exactly one such header, the
 * scheme {@code Bearer} in any case, one space, then a token of visible ASCII. Anything else is malformed and
 * refused rather than repaired, so that a proxy and this service can never read one header two ways.
 */
public final class BearerHeader {

    private static final String SCHEME = "Bearer ";

    /** What the header held. */
    public enum Kind {
        /** No {@code Authorization} header. */
        ABSENT,
        /** A header that is not exactly one well-formed bearer token. */
        MALFORMED,
        /** One bearer token. */
        TOKEN
    }

    /** The outcome: its kind, the token when there is one, and why it is malformed when it is. */
    public record Parsed(Kind kind, String token, String why) {
    }

    private BearerHeader() {
    }

    /** Reads every {@code Authorization} value the call carried. */
    public static Parsed parse(List<String> values) {
        if (values == null || values.isEmpty()) {
            return new Parsed(Kind.ABSENT, null, null);
        }
        if (values.size() > 1) {
            return malformed("more than one Authorization header");
        }
        String value = values.get(0);
        if (!value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return malformed("the Authorization scheme must be Bearer");
        }
        String token = value.substring(SCHEME.length());
        if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return malformed("Authorization must be \"Bearer <token>\": one space, then the token, nothing around it");
        }
        return new Parsed(Kind.TOKEN, token, null);
    }

    private static Parsed malformed(String why) {
        return new Parsed(Kind.MALFORMED, null, why);
    }
}
