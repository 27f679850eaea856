package io.tollgate.counter;

/**
 * What one bucket holds now, read without spending anything (the gateway's {@code explain}).
 *
 * @param exists
 * whether the bucket's key is stored; an absent bucket peeks as full (a concurrency bucket: whether a lease is live)
 * @param remaining
 * whole units the bucket holds now: what a check would report as remaining were it to spend nothing; negative
 * when the bucket is in debt, as {@link Decision#remaining} (a concurrency bucket: limit less the live leases)
 * @param resetMs
 * how long until the bucket is full again, as a check reports it (fixed window: until its window ends;
 * concurrency: 0)
 */
public record Peek(boolean exists, long remaining, long resetMs) {
}
