package io.tollgate.rules.auth;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.vertx.ext.web.RoutingContext;

/**
 * Every REST resource method's declared {@link Access}, checked by {@link AccessCheck} after routing, on the
 * method that will answer: however its path was spelled, it is this method's declaration that counts.
 */
class DeclaredAccess {

    /** Declarations never change: read once per method. */
    private static final Map<Method, Declared> DECLARED = new ConcurrentHashMap<>();

    private final AccessCheck check;

    DeclaredAccess(AccessCheck check) {
        this.check = check;
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    Response check(ResourceInfo resource, RoutingContext ctx) {
        Access access = DECLARED.computeIfAbsent(resource.getResourceMethod(),
                m -> new Declared(Access.declaredBy(m))).access();
        // the Location as the console's other redirects give it: relative, whatever host the browser used
        return check.admits(ctx, access)
                ? null
                : Response.status(Response.Status.SEE_OTHER).header(HttpHeaders.LOCATION, ConsolePage.LOGIN).build();
    }

    /** A declaration, or its absence (null), as a map can hold it. */
    private record Declared(Access access) {
    }
}
