package io.tollgate.rules.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.tollgate.rules.auth.Session;
import io.tollgate.rules.auth.SessionCookie;
import io.tollgate.rules.auth.Sessions;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Who may write: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}) and the named {@code tollgate.admin.tokens}, or, without that header, the console's session
 * cookie (the actor who logged in), which on every call but a GET or HEAD needs the session's CSRF token in
 * {@code X-CSRF-Token} too. Tokens are compared as SHA-256 digests with {@link MessageDigest#isEqual}, against
 * every configured token, so timing tells nothing; tokens are never logged.
 */
@ApplicationScoped
public class AdminTokens {

    private static final Logger LOG = Logger.getLogger(AdminTokens.class);
    private static final String BEARER = "Bearer ";
    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);
    static final String ADMIN = "admin";

    private final Map<String, byte[]> digestByActor = new LinkedHashMap<>();
    private final Sessions sessions;
    private final CurrentVertxRequest current;

    AdminTokens(RulesConfig config, Sessions sessions, CurrentVertxRequest current) {
        this.sessions = sessions;
        this.current = current;
        config.admin().token().filter(t -> !t.isBlank()).ifPresent(t -> digestByActor.put(ADMIN, digest(t)));
        config.admin().tokens().forEach((name, token) -> digestByActor.put(name, digest(token)));
        if (digestByActor.isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every write will be refused");
        } else {
            LOG.infof("write access for %s", digestByActor.keySet());
        }
    }

    /**
     * The actor of the request being served: the one its {@code Authorization} header names or, without that
     * header, its console session's.
     *
     * @throws ProblemException
     * 401 without a bearer token or session (or with an ended session), 403 for a token that is not
     * configured or a write with the session cookie but without its CSRF token
     */
    String actorFor(String authorization) {
        RoutingContext routing = current.getCurrent();
        return actorFor(authorization, routing == null ? null : routing.request());
    }

    /** {@link #actorFor(String)} on the Vert.x router, where {@code request} is at hand. */
    String actorFor(HttpServerRequest request) {
        return actorFor(request.getHeader(HttpHeaders.AUTHORIZATION), request);
    }

    /** The actor whose token this is, if it is a configured one: the console's login. */
    public Optional<String> actorOfToken(String token) {
        byte[] presented = digest(token);
        String actor = null;
        for (Map.Entry<String, byte[]> e : digestByActor.entrySet()) {
            // no early exit: every token is compared, whichever matches
            if (MessageDigest.isEqual(presented, e.getValue()) && actor == null) {
                actor = e.getKey();
            }
        }
        return Optional.ofNullable(actor);
    }

    private String actorFor(String authorization, HttpServerRequest request) {
        if (authorization == null && request != null) {
            Optional<String> session = SessionCookie.of(request);
            if (session.isPresent()) {
                return sessionActor(session.get(), request);
            }
        }
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            throw new ProblemException(
                    new Problem("unauthorized", "Authentication required", 401,
                            "writes need Authorization: Bearer <token>"),
                    Map.of("WWW-Authenticate", "Bearer realm=\"tollgate\""));
        }
        return actorOfToken(authorization.substring(BEARER.length()).trim())
                .orElseThrow(() -> new ProblemException(new Problem("forbidden", "Token not accepted", 403,
                        "the bearer token is not one of the configured admin tokens")));
    }

    private String sessionActor(String id, HttpServerRequest request) {
        Session session = sessions.find(id).orElseThrow(() -> new ProblemException(new Problem("unauthorized",
                "Session ended", 401, "the console session has ended or is unknown: log in again")));
        // a page of another site can make the browser send the cookie, never this header
        if (!READS.contains(request.method()) && !session.csrfMatches(request.getHeader(SessionCookie.CSRF_HEADER))) {
            throw csrfRefused();
        }
        return session.actor();
    }

    /** The 403 of a write made with the session cookie but without the session's CSRF token. */
    public static ProblemException csrfRefused() {
        return new ProblemException(new Problem("csrf", "CSRF token missing or wrong", 403,
                "a call with the console's session cookie needs " + SessionCookie.CSRF_HEADER
                        + ": <the session's token>; nothing was changed"));
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
