package io.tollgate.gateway.admin;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.ext.web.Router;

/** The management interface's router, as the running gateway built it, for the test that lists its routes. */
@ApplicationScoped
public class OperationsSeen {

    private static volatile Router router;

    void keep(@Observes ManagementInterface management) {
        router = management.router();
    }

    static Router router() {
        return router;
    }
}
