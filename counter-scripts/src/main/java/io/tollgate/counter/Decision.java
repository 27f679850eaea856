package io.tollgate.counter;

/**
 * The answer of one check of one bucket.
 *
 * @param allowed
 * whether the request may pass (for a multi-bucket check: whether THIS bucket would allow it); always true for
 * a settled key
 * @param remaining
 * whole requests still allowed right after this check (when another bucket of the same call rejected,
 * nothing was spent: what this bucket still holds); negative when the bucket is in debt (a settlement spent
 * more than it held, or a window counts more than a lowered limit): {@code -remaining} is what it owes, rounded
 * up (a token bucket holding -2.5 tokens reports -3). A concurrency bucket: the slots still free
 * @param retryAfterMs
 * when rejected, how long until the same request would be allowed (for a bucket in debt: until it holds the
 * request's cost again); 0 when allowed; {@link #RETRY_NEVER} when the request costs more than the bucket can
 * ever hold; 0 when a concurrency bucket rejects (a lease may be given back at any moment)
 * @param resetMs
 * how long until the bucket is full again (or its window ends); 0 for a concurrency bucket
 */
public record Decision(boolean allowed, long remaining, long retryAfterMs, long resetMs) {

    /** {@code retryAfterMs} of a request that can never pass: its cost exceeds the burst (or limit). */
    public static final long RETRY_NEVER = -1;
}
