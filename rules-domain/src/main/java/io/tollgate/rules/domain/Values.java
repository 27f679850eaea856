package io.tollgate.rules.domain;

import com.fasterxml.jackson.databind.JsonNode;

/** How a bad value is shown in a {@link FieldError}. */
final class Values {

    private static final int MAX = 200;

    private Values() {
    }

    /** Text as given, anything else as JSON, cut to a readable length; {@code null} when absent. */
    static String show(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return null;
        }
        return cut(node.isTextual() ? node.textValue() : node.toString());
    }

    /** A typed value in its text form ({@code KeySpec} and periods print their own), cut likewise. */
    static String show(Object value) {
        return value == null ? null : cut(String.valueOf(value));
    }

    private static String cut(String text) {
        return text.length() > MAX ? text.substring(0, MAX) + "…" : text;
    }
}
