package io.tollgate.rules.auth;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpMethod;

/**
 * What an endpoint declares it needs, as a value: {@link Public}, a {@link ConsolePage}, or a scope ({@link Needs}).
 * The scopes are ordered {@code gateway} &lt; {@code read} &lt; {@code admin}: each covers what the ones before it
 * cover, and only GET and HEAD are ever below {@code admin}.
 */
public enum Access {

    PUBLIC, CONSOLE_PAGE, GATEWAY, READ, ADMIN;

    private static final Set<HttpMethod> READS = Set.of(HttpMethod.GET, HttpMethod.HEAD);

    /** The access of an endpoint that needs {@code scope}. */
    public static Access of(Scope scope) {
        return switch (scope) {
            case GATEWAY -> GATEWAY;
            case READ -> READ;
            case ADMIN -> ADMIN;
        };
    }

    /**
     * What a resource method declares, on itself or else on its class; null when neither declares anything, and
     * an error when one declares more than one thing.
     */
    public static Access declaredBy(Method method) {
        Access own = declaredOn(method);
        return own != null ? own : declaredOn(method.getDeclaringClass());
    }

    private static Access declaredOn(AnnotatedElement element) {
        List<Access> found = new ArrayList<>(1);
        if (element.isAnnotationPresent(Public.class)) {
            found.add(PUBLIC);
        }
        if (element.isAnnotationPresent(ConsolePage.class)) {
            found.add(CONSOLE_PAGE);
        }
        Needs needs = element.getAnnotation(Needs.class);
        if (needs != null) {
            found.add(of(needs.value()));
        }
        if (found.size() > 1) {
            throw new IllegalStateException(element + " declares more than one access: " + found);
        }
        return found.isEmpty() ? null : found.get(0);
    }

    /** The scope a call of {@code method} to an endpoint of this access needs: a call that is not a read needs admin. */
    Scope needed(HttpMethod method) {
        if (!READS.contains(method)) {
            return Scope.ADMIN;
        }
        return switch (this) {
            case GATEWAY -> Scope.GATEWAY;
            case READ -> Scope.READ;
            default -> Scope.ADMIN;
        };
    }

    /** Whether a token of {@code scope} covers what {@code needed} asks. */
    static boolean covers(Scope scope, Scope needed) {
        return rank(scope) >= rank(needed);
    }

    private static int rank(Scope scope) {
        return switch (scope) {
            case GATEWAY -> 0;
            case READ -> 1;
            case ADMIN -> 2;
        };
    }
}
