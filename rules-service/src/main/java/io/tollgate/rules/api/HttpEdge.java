package io.tollgate.rules.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.live.GatewayRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * What every request passes through before any endpoint, on the Vert.x router so that it covers ALL
 * answers (304s, errors, health, the watch stream): the gateway registry (who called with a gateway or admin token,
 * as {@link ApiGuard} found, the rules version a poll of the rules was answered, and its management address), and the
 * 64 KiB body limit for bodies that announce their length (all but the bulk import's, which
 * {@link ClientImportRoute} bounds).
 */
@ApplicationScoped
class HttpEdge {

    /** The largest rule or rule set body accepted. */
    static final long MAX_BODY_BYTES = 64 * 1024;

    private static final String RULES = "/api/v1/rules";

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

    private void countGateways(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        Caller caller = Caller.of(ctx);
        // a Tollgate-Gateway header counts only on a call whose gateway or admin token the guard accepted
        String id = caller != null && caller.mayRegister() ? request.getHeader(Headers.GATEWAY) : null;
        if (id != null) {
            gateways.seen(id, request.getHeader(Headers.GATEWAY_ADMIN), request.getHeader(HttpHeaders.AUTHORIZATION));
        }
        boolean pollOfRules = id != null && request.method() == HttpMethod.GET && RULES.equals(request.path());
        ctx.addHeadersEndHandler(v -> {
            HttpServerResponse response = ctx.response();
            if (pollOfRules && (response.getStatusCode() == 200 || response.getStatusCode() == 304)) {
                gateways.holds(id, ETags.version(response.headers().get(Headers.ETAG)));
            }
            response.putHeader(Headers.GATEWAYS, Integer.toString(gateways.live()));
        });
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
