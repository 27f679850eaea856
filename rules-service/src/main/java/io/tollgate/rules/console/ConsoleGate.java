package io.tollgate.rules.console;

import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.auth.AccessCheck;
import io.tollgate.rules.auth.ConsolePage;
import io.tollgate.rules.auth.Endpoints;
import io.tollgate.rules.auth.Session;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * In front of every console path but the assets, however its slashes are doubled: every page answer carries the
 * headers that keep it from being framed, cached or run with anyone else's script. Whether a page may be served at
 * all is its declaration's ({@link ConsolePage}: a page without a live session is sent to the login form).
 */
@ApplicationScoped
class ConsoleGate {

    static final String LOGIN = ConsolePage.LOGIN;
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private static final Pattern MERGED_SLASHES = Pattern.compile("/{2,}");

    void install(@Observes Router router) {
        // every path, its slashes merged as the REST layer merges them: "//console/rules" is a page too
        Endpoints.edge(router.route().order(-190), this::gate);
    }

    /** The session of this page's call, which its access check found. */
    static Session session(RoutingContext ctx) {
        return AccessCheck.session(ctx);
    }

    private void gate(RoutingContext ctx) {
        String path = MERGED_SLASHES.matcher(ctx.normalizedPath()).replaceAll("/");
        if (path.startsWith("/console") && !path.startsWith(ConsoleAssets.PREFIX)) {
            ctx.response()
                    .putHeader("Content-Security-Policy", POLICY)
                    .putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer")
                    .putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
        }
        ctx.next();
    }
}
