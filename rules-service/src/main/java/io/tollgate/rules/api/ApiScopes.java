package io.tollgate.rules.api;

import java.util.Set;

import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpMethod;

/**
 * Which scope covers which call of {@code /api/v1}: {@code admin} every call, {@code read} every GET (and HEAD),
 * {@code gateway} only what a gateway needs: the rules and their watch stream, the directory, and the labels of
 * the clients it names by digest (which the directory holds anyway).
 */
final class ApiScopes {

    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);
    private static final Set<String> GATEWAY_PATHS = Set.of("/api/v1/rules", WatchRoute.PATH, "/api/v1/directory",
            "/api/v1/directory/copy", "/api/v1/clients");

    private ApiScopes() {
    }

    static boolean covers(Scope scope, HttpMethod method, String path) {
        return switch (scope) {
            case ADMIN -> true;
            case READ -> READS.contains(method);
            case GATEWAY -> READS.contains(method) && GATEWAY_PATHS.contains(path);
        };
    }

    /** The weakest scope that covers a call, for the 403's detail. */
    static String needed(HttpMethod method, String path) {
        if (!READS.contains(method)) {
            return "admin";
        }
        return GATEWAY_PATHS.contains(path) ? "gateway, read or admin" : "read or admin";
    }
}
