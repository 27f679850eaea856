package io.tollgate.rules.auth;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A page of the console: it needs a live console session (which only an admin token opens); without one the
 * browser is sent to the login form (303). A bearer token opens no page.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface ConsolePage {

    /** Where a page without a session sends the browser. */
    String LOGIN = "/console/login";
}
