package io.tollgate.rules.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.tollgate.rules.domain.Scope;

/**
 * The weakest scope whose token (or a console session, which has the {@code admin} scope) may call an endpoint:
 * {@code gateway} is covered by {@code read} and {@code admin}, {@code read} by {@code admin}. Only GET and HEAD
 * are ever below {@code admin}: any other call needs {@code admin}, whatever its endpoint declares. Checked by
 * {@link AccessCheck} on the resource method that answers, after routing.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Needs {

    Scope value();
}
