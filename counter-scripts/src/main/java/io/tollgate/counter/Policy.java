package io.tollgate.counter;

/**
 * What one bucket allows: {@code limit} requests per {@code periodMs}, holding at most {@code burst}.
 * <p>
 * For {@code token_bucket} and {@code gcra} the rate is limit / period and the capacity is burst;
 * the window algorithms count {@code limit} per window of {@code periodMs} and ignore burst.
 */
public record Policy(Algorithm algorithm, long limit, long periodMs, long burst) {

    public Policy {
        if (algorithm == null) {
            throw new IllegalArgumentException("algorithm must be set");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        if (periodMs < 1) {
            throw new IllegalArgumentException("periodMs must be >= 1, was " + periodMs);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be >= 1, was " + burst);
        }
    }
}
