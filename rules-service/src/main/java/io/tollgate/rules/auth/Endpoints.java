package io.tollgate.rules.auth;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.ProblemException;
import io.tollgate.rules.http.ProblemMappers;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;

/**
 * The one way this service adds an endpoint to the Vert.x router: with the {@link Access} it declares, kept on the
 * route ({@link #ACCESS}) and checked by {@link AccessCheck} on the route itself, once it matched, before its
 * handler runs. A route that passes every request on (an edge: {@code HttpEdge}, the session's read) is no
 * endpoint, and is marked as one with {@link #edge}.
 */
@ApplicationScoped
public class Endpoints {

    /** The route metadata that holds an endpoint's {@link Access}. */
    public static final String ACCESS = "tollgate.access";
    /** The route metadata of a route that passes every request on to the next. */
    public static final String EDGE = "tollgate.edge";

    private final AccessCheck check;
    private final ProblemMappers problems;

    Endpoints(AccessCheck check, ProblemMappers problems) {
        this.check = check;
        this.problems = problems;
    }

    /** {@code route} as an endpoint that needs {@code scope}, answered by {@code endpoint}. */
    public Route needs(Route route, Scope scope, Handler<RoutingContext> endpoint) {
        return add(route, Access.of(scope), endpoint);
    }

    /** {@code route} as an endpoint anyone may call. */
    public Route open(Route route, Handler<RoutingContext> endpoint) {
        return add(route, Access.PUBLIC, endpoint);
    }

    /** {@code route} as an edge: a handler that passes every request on, and answers none but to refuse it. */
    public static Route edge(Route route, Handler<RoutingContext> handler) {
        return route.putMetadata(EDGE, true).handler(handler);
    }

    private Route add(Route route, Access access, Handler<RoutingContext> endpoint) {
        return route.putMetadata(ACCESS, access).handler(ctx -> guard(ctx, access)).handler(endpoint);
    }

    private void guard(RoutingContext ctx, Access access) {
        try {
            if (check.admits(ctx, access)) {
                ctx.next();
            } else {
                ctx.response().setStatusCode(303).putHeader(HttpHeaders.LOCATION, ConsolePage.LOGIN).end();
            }
        } catch (ProblemException refused) {
            if (!ctx.request().isEnded()) {
                // a body no one will read (a bulk import's can be 80 MB): the connection carries no other request
                ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
            }
            refused.headers().forEach(ctx.response()::putHeader);
            problems.send(ctx.response(), refused.problem());
        }
    }
}
