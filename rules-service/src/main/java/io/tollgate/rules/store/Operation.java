package io.tollgate.rules.store;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonValue;

/** What one revision did to a rule. */
public enum Operation {

    CREATE, REPLACE, DELETE;

    /** The name in the database and on the wire, e.g. {@code create}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Operation fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
