package io.tollgate.rules.http;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * An RFC 9457 problem detail, the body of every error.
 *
 * @param type
 * a short, stable name of the kind of problem, e.g. {@code validation-failed}
 * @param title
 * the kind in words
 * @param status
 * the HTTP status
 * @param detail
 * this occurrence in words
 * @param errors
 * for a validation problem, every bad field with its value and the reason ({@code FieldError}s; for a bulk
 * import, {@code LineError}s, which also name the line)
 */
@JsonPropertyOrder({"type", "title", "status", "detail", "errors"})
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(String type, String title, int status, String detail, List<?> errors) {

    public Problem(String type, String title, int status, String detail) {
        this(type, title, status, detail, List.of());
    }
}
