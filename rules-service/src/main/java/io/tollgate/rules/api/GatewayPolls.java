package io.tollgate.rules.api;

import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.auth.Caller;
import io.tollgate.rules.auth.Endpoints;
import io.tollgate.rules.http.ETags;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.live.GatewayRegistry;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Where a gateway registers: a poll, watch or directory read that carries {@code Tollgate-Gateway} and was
 * authenticated with a {@code gateway} or {@code admin} token, recorded once it is answered (with the rules version a poll of
 * the rules
 * was answered). The gateway headers of every request are read here and taken off it, so that a header on any
 * other call counts for nothing further on.
 */
@ApplicationScoped
class GatewayPolls {

    /** The calls a gateway makes to stay current: the rule set, its watch stream, the directory's changes. */
    private static final String RULES = "/api/v1/rules";
    private static final Set<String> POLLS = Set.of(RULES, WatchRoute.PATH, "/api/v1/directory");

    private final GatewayRegistry registry;

    GatewayPolls(GatewayRegistry registry) {
        this.registry = registry;
    }

    void install(@Observes Router router) {
        Endpoints.edge(router.route().order(HttpEdge.ORDER + 1), this::register);
    }

    private void register(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        String id = request.getHeader(Headers.GATEWAY);
        String reportedUrl = request.getHeader(Headers.GATEWAY_ADMIN);
        request.headers().remove(Headers.GATEWAY).remove(Headers.GATEWAY_ADMIN);
        if (id != null && request.method() == HttpMethod.GET && POLLS.contains(request.path())) {
            String source = request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress();
            String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
            boolean pollOfRules = RULES.equals(request.path());
            ctx.addHeadersEndHandler(v -> {
                if (!mayRegister(ctx)) {
                    return;
                }
                int status = ctx.response().getStatusCode();
                long version = pollOfRules && (status == 200 || status == 304)
                        ? ETags.version(ctx.response().headers().get(Headers.ETAG))
                        : GatewayRegistry.UNKNOWN_VERSION;
                // not awaited: the answer never waits for the registry, which logs what it fails to write
                registry.heard(new GatewayRegistry.Poll(id, source, reportedUrl, authorization, version))
                        .subscribe().asCompletionStage();
            });
        }
        ctx.next();
    }

    /**
     * Whether the call was made with a {@code gateway} or {@code admin} token that the endpoint's access check
     * accepted (it put the caller on the context before the answer): the one check of who may register. A console
     * session or a {@code read} token is no gateway.
     */
    private static boolean mayRegister(RoutingContext ctx) {
        Caller caller = Caller.of(ctx);
        return caller != null && caller.mayRegister();
    }
}
