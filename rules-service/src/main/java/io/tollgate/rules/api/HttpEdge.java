package io.tollgate.rules.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.live.GatewayRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What every request passes through before any endpoint, on the Vert.x router so that it covers ALL
 * answers (304s, errors, health, the watch stream): the fleet's live count on every answer ({@link GatewayPolls}
 * registers the gateways), and the 64 KiB body limit for bodies that announce their length (all but the bulk import's, which
 * {@link ClientImportRoute} bounds).
 */
@ApplicationScoped
class HttpEdge {

    /** The largest rule or rule set body accepted. */
    static final long MAX_BODY_BYTES = 64 * 1024;

    private final GatewayRegistry gateways;
    private final ProblemMappers problems;

    HttpEdge(GatewayRegistry gateways, ProblemMappers problems) {
        this.gateways = gateways;
        this.problems = problems;
    }

    void install(@Observes Router router) {
        router.route().order(-200).handler(this::countGateways);
        router.route("/api/*").order(-199).handler(this::limitBody);
    }

    /** Every answer the guard lets through says how many gateways are live in the fleet. */
    private void countGateways(RoutingContext ctx) {
        ctx.addHeadersEndHandler(v -> ctx.response().putHeader(Headers.GATEWAYS, Integer.toString(gateways.live())));
        ctx.next();
    }

    private void limitBody(RoutingContext ctx) {
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && tooLong(length) && !ClientImportRoute.owns(ctx.request())) {
            // answered before the body is read; chunked bodies are measured by the endpoint instead
            ctx.response()
                    .setStatusCode(413)
                    .putHeader(HttpHeaders.CONTENT_TYPE, Headers.PROBLEM_JSON)
                    .putHeader(HttpHeaders.CONNECTION, "close")
                    .end(problems.json(tooLarge()));
            return;
        }
        ctx.next();
    }

    static Problem tooLarge() {
        return new Problem("payload-too-large", "Body too large", 413,
                "a rule or rule set body may be at most " + MAX_BODY_BYTES + " bytes");
    }

    private static boolean tooLong(String length) {
        try {
            return Long.parseLong(length.trim()) > MAX_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
