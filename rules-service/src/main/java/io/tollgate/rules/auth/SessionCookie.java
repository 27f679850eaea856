package io.tollgate.rules.auth;

import java.util.Optional;

import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServerRequest;

/** The console's session cookie and CSRF header: their names and how the cookie is set and cleared. */
public final class SessionCookie {

    /** The cookie that carries the session id. */
    public static final String NAME = "tollgate_session";
    /** The header every non-GET call made with the cookie carries: the session's CSRF token. */
    public static final String CSRF_HEADER = "X-CSRF-Token";

    private SessionCookie() {
    }

    /** The session id {@code request}'s cookie carries, if any. */
    public static Optional<String> of(HttpServerRequest request) {
        Cookie cookie = request.getCookie(NAME);
        return cookie == null || cookie.getValue().isEmpty() ? Optional.empty() : Optional.of(cookie.getValue());
    }

    /** The {@code Set-Cookie} value that gives the browser this session. */
    public static String set(String id, HttpServerRequest request) {
        return NAME + "=" + id + attributes(request);
    }

    /** The {@code Set-Cookie} value that makes the browser forget its session. */
    public static String cleared(HttpServerRequest request) {
        return NAME + "=; Max-Age=0" + attributes(request);
    }

    private static String attributes(HttpServerRequest request) {
        // HttpOnly: no script reads it; Strict: no other site's page sends it; Secure whenever it came over TLS
        return "; Path=/; HttpOnly; SameSite=Strict" + ("https".equals(request.scheme()) ? "; Secure" : "");
    }
}
