package io.tollgate.rules.domain;

/**
 * What a token may do, in both services: {@link #ADMIN} everything, {@link #READ} every GET and nothing written,
 * {@link #GATEWAY} what a gateway needs of the rules service (poll and watch the rules and the directory, register as
 * a live gateway) and nothing else. Configured as {@code tollgate.admin.tokens."<name>".scope}.
 */
public enum Scope {
    ADMIN, READ, GATEWAY
}
