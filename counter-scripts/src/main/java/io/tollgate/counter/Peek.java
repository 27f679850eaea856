package io.tollgate.counter;

/**
 * What one bucket holds now, read without spending anything (the gateway's {@code explain}).
 *
 * @param exists
 * whether the bucket's key is stored; an absent bucket peeks as full
 * @param remaining
 * whole units the bucket holds now: what a check would report as remaining were it to spend nothing
 * @param resetMs
 * how long until the bucket is full again, as a check reports it (fixed window: until its window ends)
 */
public record Peek(boolean exists, long remaining, long resetMs) {
}
