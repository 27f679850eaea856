package io.tollgate.rules.auth;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.ext.web.Router;

/** The application's Vert.x router, as the running service built it, for the tests that list its routes. */
@ApplicationScoped
public class RoutesSeen {

    private static volatile Router router;

    void keep(@Observes Router built) {
        router = built;
    }

    static Router router() {
        return router;
    }
}
