package io.tollgate.gateway.sync;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * How many gateways the rules service saw lately ({@code Tollgate-Gateways}); the {@code local}
 * failure mode divides each limit by it. Until the service says, the count kept beside the rules snapshot
 * (a gateway started while the service is down shares the limit as the fleet last did), else 1.
 */
@ApplicationScoped
public class LiveGateways {

    private volatile int count = 1;
    private volatile boolean heardFromService;

    /** The last count heard, at least 1. */
    public int count() {
        return count;
    }

    /**
     * Records the value of a {@code Tollgate-Gateways} header; ignores what is not a positive number.
     *
     * @return whether the count changed (the first count heard from the service always does)
     */
    boolean heard(String header) {
        if (header == null) {
            return false;
        }
        try {
            int n = Integer.parseInt(header.strip());
            if (n >= 1) {
                boolean changed = n != count || !heardFromService;
                count = n;
                heardFromService = true;
                return changed;
            }
        } catch (NumberFormatException e) {
            // a malformed count keeps the last good one: dividing by garbage would be worse
        }
        return false;
    }

    /** The count kept from an earlier run, used until the rules service says one. */
    void remembered(int n) {
        if (!heardFromService && n >= 1) {
            count = n;
        }
    }
}
