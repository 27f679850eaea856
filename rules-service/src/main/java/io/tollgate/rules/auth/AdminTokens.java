package io.tollgate.rules.auth;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.tollgate.rules.domain.BearerHeader;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Who a call is from: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}, scope {@code admin}) and the named, scoped {@code tollgate.admin.tokens}, or, without that header,
 * the console's session cookie (the actor who logged in, with the {@code admin} scope), which on every call but a
 * GET or HEAD needs the session's CSRF token in {@code X-CSRF-Token} too. Tokens are compared and wrong guesses
 * throttled per client address by {@link AdminTokenCheck}, as the gateway's operations check theirs; tokens are
 * never logged.
 */
@ApplicationScoped
public class AdminTokens {

    private static final Logger LOG = Logger.getLogger(AdminTokens.class);
    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);

    private final AdminTokenCheck check;
    private final Counter throttled;
    private final Sessions sessions;
    private final CurrentVertxRequest current;

    AdminTokens(RulesConfig config, Sessions sessions, CurrentVertxRequest current, MeterRegistry meters) {
        this.sessions = sessions;
        this.current = current;
        RulesConfig.WrongTokens wrong = config.admin().wrongTokens();
        Map<String, AdminTokenCheck.Token> named = new LinkedHashMap<>();
        config.admin().tokens().forEach((name, t) -> named.put(name, new AdminTokenCheck.Token(t.token(), t.scope())));
        this.check = AdminTokenCheck.configured(config.admin().token(), named, wrong.limit(), wrong.period());
        this.throttled = Counter.builder("tollgate.admin.throttled")
                .description("wrong admin tokens refused with 429: their address had presented too many")
                .register(meters);
        if (check.actors().isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every call of the API will be refused");
        } else {
            LOG.infof("tokens (actor=scope): %s", check.actors());
        }
    }

    /**
     * The actor of the request being served: the one {@link AccessCheck} found, else the one its
     * {@code Authorization} header names or, without that header, its console session's.
     *
     * @throws ProblemException
     * 401 without a bearer token or session (or with an ended session), 400 for a malformed header, 403 for a
     * token that is not configured or a write with the session cookie but without its CSRF token, 429 for a wrong
     * token from an address that has spent its allowance of wrong tokens
     */
    public String actorFor(String authorization) {
        RoutingContext routing = current.getCurrent();
        Caller caller = Caller.of(routing);
        if (caller != null) {
            return caller.actor();
        }
        return callerOf(routing == null ? null : routing.request()).actor();
    }

    /**
     * Checks a token presented from {@code request}'s address: the actor whose token it is, or why not. A
     * throttled wrong token is counted; an address that has just spent its allowance of wrong tokens is logged.
     */
    public AdminTokenCheck.Verdict check(String token, HttpServerRequest request) {
        AdminTokenCheck.Verdict verdict = check.check(token, address(request));
        if (verdict.throttled()) {
            throttled.increment();
        } else if (verdict.justThrottled()) {
            LOG.warnf(
                    "wrong admin tokens from %s: its wrong tokens are refused with 429, and not logged, until its allowance refills",
                    address(request));
        }
        return verdict;
    }

    private static String address(HttpServerRequest request) {
        return request == null || request.remoteAddress() == null ? null : request.remoteAddress().hostAddress();
    }

    /** Who {@code request} is from, by its bearer token or else its console session; refused as {@link #actorFor}. */
    Caller callerOf(HttpServerRequest request) {
        BearerHeader.Parsed bearer = BearerHeader.parse(request == null
                ? List.of()
                : request.headers().getAll(HttpHeaders.AUTHORIZATION));
        if (bearer.kind() == BearerHeader.Kind.ABSENT && request != null) {
            Optional<String> session = SessionCookie.of(request);
            if (session.isPresent()) {
                return new Caller(sessionActor(session.get(), request), Scope.ADMIN, false);
            }
        }
        if (bearer.kind() == BearerHeader.Kind.MALFORMED) {
            throw new ProblemException(
                    new Problem("bad-authorization", "Malformed Authorization header", 400, bearer.why()),
                    Map.of("WWW-Authenticate", "Bearer realm=\"tollgate\", error=\"invalid_request\""));
        }
        if (bearer.kind() == BearerHeader.Kind.ABSENT) {
            throw new ProblemException(
                    new Problem("unauthorized", "Authentication required", 401,
                            "every call of the API needs Authorization: Bearer <token> or a console session"),
                    Map.of("WWW-Authenticate", "Bearer realm=\"tollgate\""));
        }
        AdminTokenCheck.Verdict verdict = check(bearer.token(), request);
        if (verdict.throttled()) {
            throw new ProblemException(new Problem("too-many-wrong-tokens", "Too many wrong tokens", 429,
                    "this address presented too many wrong tokens; its wrong tokens are refused for the next "
                            + verdict.retryAfterSeconds() + " s"),
                    Map.of("Retry-After", Long.toString(verdict.retryAfterSeconds())));
        }
        if (!verdict.accepted()) {
            throw new ProblemException(new Problem("forbidden", "Token not accepted", 403,
                    "the bearer token is not one of the configured tokens"));
        }
        return new Caller(verdict.actor(), verdict.scope(), true);
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
}
