package io.tollgate.gateway.rules;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * How many gateways the rules service saw lately ({@code Tollgate-Gateways}); the {@code local}
 * failure mode divides each limit by it. 1 until the service has said otherwise.
 */
@ApplicationScoped
public class LiveGateways {

    private volatile int count = 1;

    /** The last count heard, at least 1. */
    public int count() {
        return count;
    }

    /** Records the value of a {@code Tollgate-Gateways} header; ignores what is not a positive number. */
    void heard(String header) {
        if (header == null) {
            return;
        }
        try {
            int n = Integer.parseInt(header.strip());
            if (n >= 1) {
                count = n;
            }
        } catch (NumberFormatException e) {
            // a malformed count keeps the last good one: dividing by garbage would be worse
        }
    }
}
