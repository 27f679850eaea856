package io.tollgate.rules.domain;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.time.Duration;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/**
 * The annotated period lasts at least one millisecond, the unit the counter scripts count in; {@code null}
 * is valid (pair it with {@code @NotNull}).
 */
@Documented
@Constraint(validatedBy = PositivePeriod.Check.class)
@Target({FIELD, METHOD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface PositivePeriod {

    String message() default "must be at least 1 millisecond";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Compares in milliseconds: {@code PT0.0005S} is positive but rounds to nothing in a script. */
    class Check implements ConstraintValidator<PositivePeriod, Duration> {

        @Override
        public boolean isValid(Duration period, ConstraintValidatorContext context) {
            return period == null || period.toMillis() >= 1;
        }
    }
}
