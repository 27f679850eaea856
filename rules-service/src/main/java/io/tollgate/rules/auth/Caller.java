package io.tollgate.rules.auth;

import io.tollgate.rules.domain.Scope;
import io.vertx.ext.web.RoutingContext;

/**
 * Who a call of the API is from, as {@link AccessCheck} found it: the actor, the scope, and whether a bearer token
 * (rather than a console session) proved it. Only a token's caller may register as a gateway.
 */
public record Caller(String actor, Scope scope, boolean byToken) {

    private static final String KEY = "tollgate.caller";

    /** The caller {@link AccessCheck} put on this call, or null before it did (or for an endpoint that needs none). */
    public static Caller of(RoutingContext ctx) {
        return ctx == null ? null : ctx.get(KEY);
    }

    void putOn(RoutingContext ctx) {
        ctx.put(KEY, this);
    }

    /** Whether this caller may count as a live gateway and name its management address. */
    public boolean mayRegister() {
        return byToken && (scope == Scope.GATEWAY || scope == Scope.ADMIN);
    }
}
