package io.tollgate.rules.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.auth.AccessCheck;
import io.tollgate.rules.auth.Endpoints;
import io.tollgate.rules.http.Bodies;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemMappers;
import io.tollgate.rules.live.GatewayRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What every request passes through before any endpoint, on the Vert.x router so that it covers ALL answers (304s,
 * errors, health, the watch stream): a {@code ;} parameter in the path refused (400), the fleet's live count on
 * every answer ({@link GatewayPolls} registers the gateways), and the 64 KiB body limit for bodies that announce
 * their length (all but the bulk import's, which {@link ClientImportRoute} bounds).
 */
@ApplicationScoped
class HttpEdge {

    private final GatewayRegistry gateways;
    private final ProblemMappers problems;

    HttpEdge(GatewayRegistry gateways, ProblemMappers problems) {
        this.gateways = gateways;
        this.problems = problems;
    }

    /** Where the edge stands among the routes: after the session's read, before every endpoint. */
    static final int ORDER = -200;

    void install(@Observes Router router) {
        Endpoints.edge(router.route().order(ORDER - 100), this::refuseParameters);
        Endpoints.edge(router.route().order(ORDER), this::countGateways);
        Endpoints.edge(router.route("/api/*").order(ORDER + 1), this::limitBody);
    }

    /**
     * A {@code ;} parameter in a path (which routing would keep and the REST layer strip) is refused, so that the
     * router and every endpoint read a path one way: no endpoint of this service takes one.
     */
    private void refuseParameters(RoutingContext ctx) {
        if (ctx.request().path() != null && ctx.request().path().indexOf(';') >= 0) {
            problems.send(ctx.response(), new Problem("path-parameter", "Parameter in the path", 400,
                    "no path of this service takes a ';' parameter: leave it out"));
            return;
        }
        ctx.next();
    }

    /** Every answer but the refusal of a caller ({@link AccessCheck}) says how many gateways are live in the fleet. */
    private void countGateways(RoutingContext ctx) {
        ctx.addHeadersEndHandler(v -> {
            if (!AccessCheck.refused(ctx)) {
                ctx.response().putHeader(Headers.GATEWAYS, Integer.toString(gateways.live()));
            }
        });
        ctx.next();
    }

    private void limitBody(RoutingContext ctx) {
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLong(length) && !ClientImportRoute.owns(ctx.request())) {
            // answered before the body is read; chunked bodies are measured by the endpoint instead
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
            problems.send(ctx.response(), Bodies.tooLarge());
            return;
        }
        ctx.next();
    }

    private static boolean tooLong(String length) {
        try {
            return Long.parseLong(length.trim()) > Bodies.MAX_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
