package io.tollgate.rules.console;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.tollgate.rules.auth.Session;
import io.tollgate.rules.auth.SessionCookie;
import io.tollgate.rules.auth.Sessions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * In front of every console path: a page without a live session is sent to the login form (303), a page with
 * one finds it in the routing context ({@link #session}); every page answer carries the headers that keep it
 * from being framed, cached or run with anyone else's script.
 */
@ApplicationScoped
class ConsoleGate {

    static final String LOGIN = "/console/login";
    private static final String SESSION = "tollgate.console.session";
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final Sessions sessions;

    ConsoleGate(Sessions sessions) {
        this.sessions = sessions;
    }

    void install(@Observes Router router) {
        router.route("/console*").order(-190).handler(this::gate);
    }

    /** The session the gate found for this page. */
    static Session session(RoutingContext ctx) {
        return ctx.get(SESSION);
    }

    private void gate(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        if (path.startsWith(ConsoleAssets.PREFIX)) {
            ctx.next();
            return;
        }
        ctx.response()
                .putHeader("Content-Security-Policy", POLICY)
                .putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("Referrer-Policy", "no-referrer")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
        if (path.equals(LOGIN)) {
            ctx.next();
            return;
        }
        Optional<Session> session = SessionCookie.of(ctx.request()).flatMap(sessions::find);
        if (session.isEmpty()) {
            ctx.response().setStatusCode(303).putHeader(HttpHeaders.LOCATION, LOGIN).end();
            return;
        }
        ctx.put(SESSION, session.get());
        ctx.next();
    }
}
