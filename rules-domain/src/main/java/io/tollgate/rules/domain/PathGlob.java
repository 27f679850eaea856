package io.tollgate.rules.domain;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.Optional;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

import org.hibernate.validator.constraintvalidation.HibernateConstraintValidatorContext;

/**
 * The annotated text is a {@link PathPattern} glob; the violation says what is wrong with it. Unlike most
 * constraints, {@code null} is invalid: a match always has a path ({@code /**} when none is given).
 */
@Documented
@Constraint(validatedBy = PathGlob.Check.class)
@Target({FIELD, METHOD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface PathGlob {

    /** Replaced by the reason {@link PathPattern#problem} gives. */
    String message() default "{problem}";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Asks {@link PathPattern#problem}, so the API and the matcher can never disagree on a glob. */
    class Check implements ConstraintValidator<PathGlob, String> {

        @Override
        public boolean isValid(String glob, ConstraintValidatorContext context) {
            Optional<String> problem = PathPattern.problem(glob);
            // a message parameter, unlike a built template, is never interpolated: a glob may hold '{' or '$'
            problem.ifPresent(p -> context.unwrap(HibernateConstraintValidatorContext.class)
                    .addMessageParameter("problem", p));
            return problem.isEmpty();
        }
    }
}
