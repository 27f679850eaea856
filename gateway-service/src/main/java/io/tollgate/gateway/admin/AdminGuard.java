package io.tollgate.gateway.admin;

import java.util.Locale;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.gateway.http.Problems;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.tollgate.rules.domain.BearerHeader;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/**
 * Guards every operation ({@code /tollgate/*} on the management interface) with a bearer token: 401 without one,
 * 400 for a malformed {@code Authorization} header, 403 for a token that is not configured or whose scope does not
 * cover the call ({@code read} covers the GETs, {@code admin} everything, {@code gateway} nothing here), 429 (with
 * {@code Retry-After}) while the caller's address has presented too many wrong ones; the actor goes on in the
 * routing context as {@link #ACTOR}. Health and metrics ({@code /q/*}) stay open to the probes and the scraper.
 */
@ApplicationScoped
class AdminGuard {

    /** The routing-context key of the actor an operation runs for. */
    static final String ACTOR = "tollgate.actor";
    /** Before every operation's own route. */
    private static final int FIRST = -1000;
    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);

    private final AdminTokens tokens;

    AdminGuard(AdminTokens tokens) {
        this.tokens = tokens;
    }

    void register(@Observes ManagementInterface management) {
        management.router().route("/tollgate/*").order(FIRST).handler(this::guard);
    }

    private void guard(RoutingContext ctx) {
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
        if (!covers(verdict.scope(), ctx.request().method())) {
            Problems.send(ctx.response(), Problems.problem("insufficient-scope", "Token scope too weak", 403,
                    "the token of " + verdict.actor() + " has the " + verdict.scope().name().toLowerCase(Locale.ROOT)
                            + " scope; " + ctx.request().method() + " " + ctx.normalizedPath() + " needs "
                            + (READS.contains(ctx.request().method()) ? "read or admin" : "admin")));
            return;
        }
        ctx.put(ACTOR, verdict.actor());
        ctx.next();
    }

    /** {@code read} covers the GETs, {@code admin} every operation; a gateway token none. */
    static boolean covers(Scope scope, HttpMethod method) {
        return switch (scope) {
            case ADMIN -> true;
            case READ -> READS.contains(method);
            case GATEWAY -> false;
        };
    }
}
