package io.tollgate.counter;

/**
 * What one bucket holds between checks: the Java twin of the one value the Lua stores per key (a tag
 * byte and little-endian doubles, packed with {@code struct.pack}; a concurrency key's leases, a sorted set).
 */
interface BucketState {

    /** The latest key expiry the script writes, in Unix ms ({@code check.lua}'s {@code FAR_MS}). */
    double FAR_MS = 0x1p53;

    /** Unix time in microseconds from which the state counts as absent (and Redis drops the key). */
    double expiresAtMicros();

    /** The expiry as Redis gets it: {@code SET ... PXAT} milliseconds, rounded up like the script. */
    default long expiresAtMs() {
        return (long) Math.min(Math.ceil(expiresAtMicros() / 1000), FAR_MS);
    }
}
