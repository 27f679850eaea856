package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;

import org.hibernate.validator.engine.HibernateConstraintViolation;

/**
 * Turns Bean Validation's violations into {@link FieldError}s: the field as a rule's author writes it
 * ({@code match.methods[1]}, {@code rules[2].limit}, {@code failure_mode}), the bad value as text, and the
 * errors in the order the fields appear in a rule (the validator's own order is a hash set's).
 */
final class Violations {

    /** Every field name, in the order a rule set and a rule are written. */
    private static final List<String> FIELD_ORDER = List.of("version", "rules", "id", "description", "match",
            "methods", "path", "key", "algorithm", "limit", "period", "burst", "failure_mode", "shadow", "enabled",
            "missing_key", "plans", "tenant", "plan", "label", "overrides");

    private Violations() {
    }

    static <T> List<FieldError> toFieldErrors(Set<ConstraintViolation<T>> violations) {
        return violations.stream()
                .map(Violations::located)
                .sorted(Comparator.comparing(Located::rank, Violations::compareRanks))
                .map(Located::error)
                .toList();
    }

    /** An error with its sort key: per path node, its index in a list and its field's place in a rule. */
    private record Located(FieldError error, List<Integer> rank) {
    }

    private static Located located(ConstraintViolation<?> violation) {
        StringBuilder field = new StringBuilder();
        List<Integer> rank = new ArrayList<>();
        for (Path.Node node : violation.getPropertyPath()) {
            if (node.isInIterable() && node.getKey() != null) {
                // a map's entry: plans.free.limit, overrides.orders.write.burst
                field.append('.').append(node.getKey());
                rank.add(0);
            } else if (node.isInIterable()) {
                field.append('[').append(node.getIndex()).append(']');
                rank.add(node.getIndex());
            }
            if (node.getKind() == ElementKind.PROPERTY) {
                String name = snakeCase(node.getName());
                field.append(field.isEmpty() ? "" : ".").append(name);
                int place = FIELD_ORDER.indexOf(name);
                rank.add(place < 0 ? FIELD_ORDER.size() : place);
            }
        }
        return new Located(new FieldError(field.toString(), Values.show(badValue(violation)),
                violation.getMessage()), rank);
    }

    /** What the author wrote wrong: a check over a whole list may name one element as its payload. */
    private static Object badValue(ConstraintViolation<?> violation) {
        Object payload = violation.unwrap(HibernateConstraintViolation.class).getDynamicPayload(Object.class);
        return payload != null ? payload : violation.getInvalidValue();
    }

    private static String snakeCase(String javaName) {
        return javaName.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
    }

    private static int compareRanks(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Integer.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
