package io.tollgate.gateway.limiter.decision;

/** How one rule decided one request; the {@code outcome} label of {@code tollgate_decisions_total}. */
public enum Outcome {

    /** The store allowed it. */
    ALLOWED("allowed", true),
    /** Allowed from this gateway's lease of the bucket's tokens, without a store call. */
    LEASED("leased", true),
    /** The store rejected it. */
    REJECTED("rejected", false),
    /** A shadow rule would have rejected it; it passed. */
    SHADOW_REJECTED("shadow_rejected", true),
    /** Rejected from the gateway's memory of an earlier rejection, without a store call. */
    CACHED_REJECTED("cached_rejected", false),
    /** Rejected without a store call: the client's effective policy (a plan or override) has limit 0. */
    BLOCKED("blocked", false),
    /** The store failed; the failure mode (open, or local with room) let it pass. */
    FALLBACK_ALLOWED("fallback_allowed", true),
    /** The store failed; the failure mode (closed, or local without room) stopped it. */
    FALLBACK_REJECTED("fallback_rejected", false);

    private final String label;
    private final boolean passes;

    Outcome(String label, boolean passes) {
        this.label = label;
        this.passes = passes;
    }

    /** The metric label. */
    public String label() {
        return label;
    }

    /** Whether this outcome lets the request through. */
    public boolean passes() {
        return passes;
    }
}
