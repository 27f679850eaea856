package io.tollgate.rules.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.tollgate.rules.domain.FieldError;

/**
 * One bad field of one line of a bulk import.
 *
 * @param line
 * the line's number, from 1
 * @param field
 * the field, as in {@link FieldError} ({@code ""}: the line as a whole)
 * @param value
 * the value given, as text; {@code null} when missing, and always for the {@code key}
 * @param reason
 * why it is rejected
 */
@JsonPropertyOrder({"line", "field", "value", "reason"})
public record LineError(long line, String field, String value, String reason) {

    /** {@code error} on line {@code line}. */
    public static LineError of(long line, FieldError error) {
        return new LineError(line, error.field(), error.value(), error.reason());
    }
}
