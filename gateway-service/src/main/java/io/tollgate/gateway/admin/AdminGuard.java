package io.tollgate.gateway.admin;

import java.util.Locale;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.tollgate.rules.domain.BearerHeader;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;

/**
 * The one way an operation is added to the management interface ({@link #operation}): with the weakest scope that
 * may call it, kept on the route ({@link #SCOPE}) and checked on the route itself once it matched, so that no
 * spelling of a path reaches an operation its token may not. The check: 401 without a bearer token, 400 for a
 * malformed {@code Authorization} header, 403 for a token that is not configured or whose scope does not cover the
 * call ({@code read} covers the GETs, {@code admin} everything, {@code gateway} nothing here), 429 (with
 * {@code Retry-After}) for a wrong token from an address that has presented too many, then 400 {@code key-in-url}
 * for a client key in the query, which no operation takes ({@link KeysInQuery}); the actor goes on in the
 * routing context as {@link #ACTOR}. Health and metrics ({@code /q/*}) are Quarkus's, open to the probes and the
 * scraper.
 */
@ApplicationScoped
class AdminGuard {

    /** The routing-context key of the actor an operation runs for. */
    static final String ACTOR = "tollgate.actor";
    /** The route metadata that holds an operation's scope. */
    static final String SCOPE = "tollgate.scope";
    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);

    private final AdminTokens tokens;
    private final KeyResolver keys;

    AdminGuard(AdminTokens tokens, KeyResolver keys) {
        this.tokens = tokens;
        this.keys = keys;
    }

    /** {@code route} as an operation that needs {@code scope} (read: the GETs; admin: any), answered by {@code handler}. */
    Route operation(Route route, Scope scope, Handler<RoutingContext> handler) {
        return route.putMetadata(SCOPE, scope).handler(ctx -> guard(ctx, scope)).handler(handler);
    }

    private void guard(RoutingContext ctx, Scope declared) {
        BearerHeader.Parsed bearer = BearerHeader.parse(ctx.request().headers().getAll(HttpHeaders.AUTHORIZATION));
        if (bearer.kind() == BearerHeader.Kind.ABSENT) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"tollgate\"");
            Problems.send(ctx.response(), Problems.problem("unauthorized", "Authentication required", 401,
                    "operations need Authorization: Bearer <token>"));
            return;
        }
        if (bearer.kind() == BearerHeader.Kind.MALFORMED) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"tollgate\", error=\"invalid_request\"");
            Problems.send(ctx.response(), Problems.problem("bad-authorization", "Malformed Authorization header", 400,
                    bearer.why()));
            return;
        }
        SocketAddress peer = ctx.request().remoteAddress();
        AdminTokenCheck.Verdict verdict = tokens.check(bearer.token(), peer == null ? null : peer.hostAddress());
        if (verdict.throttled()) {
            ctx.response().putHeader("Retry-After", Long.toString(verdict.retryAfterSeconds()));
            Problems.send(ctx.response(), Problems.problem("too-many-wrong-tokens", "Too many wrong tokens", 429,
                    "this address presented too many wrong admin tokens; its wrong tokens are refused for the next "
                            + verdict.retryAfterSeconds() + " s"));
            return;
        }
        if (!verdict.accepted()) {
            Problems.send(ctx.response(), Problems.problem("forbidden", "Token not accepted", 403,
                    "the bearer token is not one of the configured tokens"));
            return;
        }
        Scope needed = needed(declared, ctx.request().method());
        if (!covers(verdict.scope(), needed)) {
            Problems.send(ctx.response(), Problems.problem("insufficient-scope", "Token scope too weak", 403,
                    "the token of " + verdict.actor() + " has the " + name(verdict.scope()) + " scope; "
                            + ctx.request().method() + " " + ctx.normalizedPath() + " needs " + name(needed)));
            return;
        }
        if (KeysInQuery.refused(ctx, keys)) {
            return; // after the caller's check: the wrong side of the door meets the token first
        }
        ctx.put(ACTOR, verdict.actor());
        ctx.next();
    }

    /** What a call needs of an operation that declares {@code declared}: a call that is not a read needs admin. */
    static Scope needed(Scope declared, HttpMethod method) {
        return READS.contains(method) ? declared : Scope.ADMIN;
    }

    /** {@code admin} covers every operation, {@code read} those that need read; a gateway token none. */
    static boolean covers(Scope scope, Scope needed) {
        return switch (scope) {
            case ADMIN -> true;
            case READ -> needed == Scope.READ;
            case GATEWAY -> false;
        };
    }

    private static String name(Scope scope) {
        return scope.name().toLowerCase(Locale.ROOT);
    }
}
