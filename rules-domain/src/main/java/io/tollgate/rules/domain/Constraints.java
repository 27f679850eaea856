package io.tollgate.rules.domain;

import java.util.Set;

/**
 * What the constraints on the rule's and the directory's types say: their bounds and the reasons a violation gives
 * ({value}, {max}, {regexp}: the constraint's own). One place below the types that declare them ({@link Rule},
 * {@link Limits}, {@link Settle}, {@link ClientEntry}, {@link TenantEntry}), the reader that reports a bad field
 * with them ({@link RuleReader}) and the validator that checks them ({@link RuleValidator}): a value does not
 * depend on what checks it.
 */
final class Constraints {

    /** The id pattern, as text for {@code @Pattern}: 1 to 63 of {@code a-z 0-9 . _ -}, starting with a letter or digit. */
    static final String ID_REGEX = "^[a-z0-9][a-z0-9._-]{0,62}$";
    /** The methods a rule may name (RFC 9110 plus PATCH). */
    static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
            "CONNECT");
    static final int MAX_DESCRIPTION = 1_000;
    /** Plans one rule may name. */
    static final int MAX_PLANS = 100;
    /** Longest label of a client or tenant. */
    static final int MAX_LABEL = 200;
    /** The largest cost a rule may give a request, and the most a settlement charges when the usage never comes. */
    static final long MAX_COST = 1_000_000_000L;

    static final String REQUIRED = "is required";
    static final String KEY_REQUIRED = "is required (api_key, tenant, ip, global or header:<Name>)";
    static final String PERIOD_REQUIRED = "is required (e.g. 1s, 10s, 1m, 1h, 1d or PT30S)";
    static final String ID_MISMATCH = "must match {regexp}";
    static final String TOO_LONG = "must be at most {max} characters";
    static final String AT_LEAST = "must be at least {value}";
    static final String AT_MOST_ENTRIES = "must have at most {max} entries";
    static final String AT_MOST = "must be at most {value}";
    // What slot_ttl takes (concurrency only), and what lease takes (token leases: the algorithms other than concurrency).
    static final String SLOT_TTL = "a positive whole number with s, m or h (60s, 5m) with concurrency: how long a"
            + " slot lasts when its gateway dies before giving it back";
    static final String TOKEN_LEASE = "auto or off (a slot's duration, slot_ttl, applies to concurrency rules only)";

    private Constraints() {
    }
}
