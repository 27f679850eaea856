package io.tollgate.rules.live;

/**
 * The four totals the live view shows per rule, and which {@code outcome}s of the gateways'
 * {@code tollgate_decisions_total{rule,outcome}} each sums. An outcome not listed is not counted.
 */
public enum Tally {

    /** Let through by the store or a lease. */
    ALLOWED("allowed"),
    /** Stopped: by the store, from the memory of an earlier rejection, or by a policy of limit 0. */
    REJECTED("rejected"),
    /** A shadow rule would have stopped it; it passed. */
    SHADOW("shadow"),
    /** The store failed and the failure mode decided, either way. */
    FALLBACK("fallback");

    private static final Tally[] ALL = values();

    private final String wireName;

    Tally(String wireName) {
        this.wireName = wireName;
    }

    /** The field name in the API's answers. */
    public String wireName() {
        return wireName;
    }

    /** The tally an {@code outcome} label counts in, or null for one the live view does not count. */
    static Tally of(String outcome) {
        return switch (outcome) {
            case "allowed", "leased" -> ALLOWED;
            case "rejected", "cached_rejected", "blocked" -> REJECTED;
            case "shadow_rejected" -> SHADOW;
            case "fallback_allowed", "fallback_rejected" -> FALLBACK;
            default -> null;
        };
    }

    static int count() {
        return ALL.length;
    }

    static Tally at(int index) {
        return ALL[index];
    }
}
