package io.tollgate.rules.domain;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/** The annotated text is one of {@link RuleValidator#METHODS}, upper case; {@code null} is valid. */
@Documented
@Constraint(validatedBy = HttpMethod.Check.class)
@Target({FIELD, METHOD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface HttpMethod {

    String message() default "is not an HTTP method (one of CONNECT, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT,"
            + " TRACE)";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Looks the method up in the methods a rule may name. */
    class Check implements ConstraintValidator<HttpMethod, String> {

        @Override
        public boolean isValid(String method, ConstraintValidatorContext context) {
            return method == null || Constraints.METHODS.contains(method);
        }
    }
}
