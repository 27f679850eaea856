package io.tollgate.rules.domain;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

import org.hibernate.validator.constraintvalidation.HibernateConstraintValidatorContext;

/**
 * No two rules of the annotated list share an id. Each repeat is reported at its own place,
 * {@code rules[3].id}, naming the first rule with that id; the repeated id is the violation's dynamic
 * payload, so the error can show it as the bad value.
 */
@Documented
@Constraint(validatedBy = UniqueIds.Check.class)
@Target({FIELD, METHOD, PARAMETER})
@Retention(RUNTIME)
public @interface UniqueIds {

    String message() default "duplicate id";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Remembers the first index of each id and reports every later one. */
    class Check implements ConstraintValidator<UniqueIds, List<Rule>> {

        @Override
        public boolean isValid(List<Rule> rules, ConstraintValidatorContext context) {
            if (rules == null) {
                return true;
            }
            Map<String, Integer> first = new HashMap<>();
            boolean valid = true;
            for (int i = 0; i < rules.size(); i++) {
                String id = rules.get(i).id();
                Integer earlier = id == null ? null : first.putIfAbsent(id, i);
                if (earlier != null) {
                    valid = false;
                    report(context, i, earlier, id);
                }
            }
            return valid;
        }

        private static void report(ConstraintValidatorContext context, int index, int earlier, String id) {
            HibernateConstraintValidatorContext hv = context.unwrap(HibernateConstraintValidatorContext.class);
            hv.disableDefaultConstraintViolation();
            hv.addMessageParameter("earlier", earlier)
                    .withDynamicPayload(id)
                    .buildConstraintViolationWithTemplate("duplicate id (also rules[{earlier}])")
                    .addPropertyNode("id")
                    .inIterable()
                    .atIndex(index)
                    .addConstraintViolation();
        }
    }
}
