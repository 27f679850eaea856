package io.tollgate.gateway.admin;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.gateway.http.Problems;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/**
 * Guards every operation ({@code /tollgate/*} on the management interface) with the admin bearer token: 401
 * without one, 403 for a token that is not configured, 429 (with {@code Retry-After}) while the caller's address
 * has presented too many wrong ones; the actor goes on in the routing context as
 * {@link #ACTOR}. Health and metrics ({@code /q/*}) stay open to the probes and the scraper.
 */
@ApplicationScoped
class AdminGuard {

    /** The routing-context key of the actor an operation runs for. */
    static final String ACTOR = "tollgate.actor";
    /** Before every operation's own route. */
    private static final int FIRST = -1000;

    private final AdminTokens tokens;

    AdminGuard(AdminTokens tokens) {
        this.tokens = tokens;
    }

    void register(@Observes ManagementInterface management) {
        management.router().route("/tollgate/*").order(FIRST).handler(this::guard);
    }

    private void guard(RoutingContext ctx) {
        String authorization = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (!AdminTokens.bearer(authorization)) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"tollgate\"");
            Problems.send(ctx.response(), Problems.problem("unauthorized", "Authentication required", 401,
                    "operations need Authorization: Bearer <token>"));
            return;
        }
        SocketAddress peer = ctx.request().remoteAddress();
        AdminTokenCheck.Verdict verdict = tokens.check(authorization, peer == null ? null : peer.hostAddress());
        if (verdict.throttled()) {
            ctx.response().putHeader("Retry-After", Long.toString(verdict.retryAfterSeconds()));
            Problems.send(ctx.response(), Problems.problem("too-many-wrong-tokens", "Too many wrong tokens", 429,
                    "this address presented too many wrong admin tokens; no token from it is read for the next "
                            + verdict.retryAfterSeconds() + " s"));
            return;
        }
        if (!verdict.accepted()) {
            Problems.send(ctx.response(), Problems.problem("forbidden", "Token not accepted", 403,
                    "the bearer token is not one of the configured admin tokens"));
            return;
        }
        ctx.put(ACTOR, verdict.actor());
        ctx.next();
    }
}
