package io.tollgate.rules.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * In front of every call of the API, the watch stream and the bulk import included, before anything is looked
 * up: 401 without a token or console session, 403 for a token whose scope does not cover the call (see
 * {@link ApiScopes}); the caller goes on in the routing context ({@link Caller}) for the endpoint and for the
 * gateway registry, which counts only callers that proved themselves with a gateway or admin token.
 */
@ApplicationScoped
class ApiGuard {

    /** Before {@link HttpEdge}, whose gateway registry reads the caller. */
    static final int ORDER = -201;

    private final AdminTokens tokens;
    private final ProblemMappers problems;

    ApiGuard(AdminTokens tokens, ProblemMappers problems) {
        this.tokens = tokens;
        this.problems = problems;
    }

    void install(@Observes Router router) {
        router.route("/api/*").order(ORDER).handler(this::guard);
    }

    private void guard(RoutingContext ctx) {
        Caller caller;
        try {
            caller = tokens.callerOf(ctx.request());
        } catch (ProblemException refused) {
            send(ctx, refused);
            return;
        }
        if (!ApiScopes.covers(caller.scope(), ctx.request().method(), ctx.normalizedPath())) {
            send(ctx, new ProblemException(new Problem("insufficient-scope", "Token scope too weak", 403,
                    "the token of " + caller.actor() + " has the " + caller.scope().name().toLowerCase(java.util.Locale.ROOT)
                            + " scope; " + ctx.request().method() + " " + ctx.normalizedPath() + " needs "
                            + ApiScopes.needed(ctx.request().method(), ctx.normalizedPath()))));
            return;
        }
        caller.putOn(ctx);
        ctx.next();
    }

    private void send(RoutingContext ctx, ProblemException refused) {
        refused.headers().forEach(ctx.response()::putHeader);
        ctx.response()
                .setStatusCode(refused.problem().status())
                .putHeader(HttpHeaders.CONTENT_TYPE, Headers.PROBLEM_JSON)
                .end(problems.json(refused.problem()));
    }
}
