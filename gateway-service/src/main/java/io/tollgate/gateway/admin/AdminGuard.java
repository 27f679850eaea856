package io.tollgate.gateway.admin;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.gateway.http.Problems;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Guards every operation ({@code /tollgate/*} on the management interface) with the admin bearer token: 401
 * without one, 403 for a token that is not configured; the actor goes on in the routing context as
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
        String actor = tokens.actorFor(authorization);
        if (actor == null) {
            Problems.send(ctx.response(), Problems.problem("forbidden", "Token not accepted", 403,
                    "the bearer token is not one of the configured admin tokens"));
            return;
        }
        ctx.put(ACTOR, actor);
        ctx.next();
    }
}
