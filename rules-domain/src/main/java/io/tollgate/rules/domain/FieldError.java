package io.tollgate.rules.domain;

/**
 * One bad field of a rule or rule set.
 *
 * @param field
 * where, as a path such as {@code limit}, {@code match.path} or {@code rules[2].id}
 * @param value
 * the value given, as text ({@code null} when the field was missing)
 * @param reason
 * why it is rejected, in words a user can act on
 */
public record FieldError(String field, String value, String reason) {

    /** The same error, its field placed under {@code prefix} (e.g. {@code rules[2]}). */
    public FieldError under(String prefix) {
        return new FieldError(placed(prefix, field), value, reason);
    }

    /** {@code field} under {@code prefix}: {@code rules[2]} and {@code limit} give {@code rules[2].limit}. */
    static String placed(String prefix, String field) {
        return field.isEmpty() ? prefix : prefix + "." + field;
    }
}
