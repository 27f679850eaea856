package io.tollgate.counter;

/**
 * The answer of one check of one bucket.
 *
 * @param allowed
 * whether the request may pass (for a multi-bucket check: whether THIS bucket would allow it)
 * @param remaining
 * whole requests still allowed right after this check (when another bucket of the same call rejected,
 * nothing was spent: what this bucket still holds)
 * @param retryAfterMs
 * when rejected, how long until the same request would be allowed; 0 when allowed;
 * {@link #RETRY_NEVER} when the request costs more than the bucket can ever hold
 * @param resetMs
 * how long until the bucket is full again (or its window ends)
 */
public record Decision(boolean allowed, long remaining, long retryAfterMs, long resetMs) {

    /** {@code retryAfterMs} of a request that can never pass: its cost exceeds the burst (or limit). */
    public static final long RETRY_NEVER = -1;
}
