package io.tollgate.rules.auth;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Before anything else on the router: a request with the console's session cookie has its session read from
 * PostgreSQL, without blocking, so that everything after it (the access check of every endpoint, on an
 * event loop or not) finds it through {@link Sessions#find} without I/O.
 */
@ApplicationScoped
class SessionEdge {

    private static final Logger LOG = Logger.getLogger(SessionEdge.class);

    private final Sessions sessions;

    SessionEdge(Sessions sessions) {
        this.sessions = sessions;
    }

    /** The console's assets need no session: the browser sends the cookie with them, but they are not read. */
    private static final String ASSETS = "/console/assets/";

    void install(@Observes Router router) {
        // every path, however spelled: which endpoint answers is known only once routing is done
        Endpoints.edge(router.route().order(-250), this::load);
    }

    private void load(RoutingContext ctx) {
        Optional<String> id = SessionCookie.of(ctx.request());
        if (id.isEmpty() || ctx.normalizedPath().startsWith(ASSETS)) {
            ctx.next();
            return;
        }
        sessions.load(id.get()).subscribe().with(found -> ctx.next(), failure -> {
            // a session that cannot be read is no session: the request goes on as one without it
            LOG.warnf("console session not read: %s", failure.toString());
            ctx.next();
        });
    }
}
