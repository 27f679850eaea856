package io.tollgate.counter;

/**
 * What one bucket holds between checks: the Java twin of the one value the Lua stores per key (a tag
 * byte and little-endian doubles, packed with {@code struct.pack}).
 */
interface BucketState {

    /** Unix time in microseconds from which the state counts as absent (and Redis drops the key). */
    double expiresAtMicros();

    /** The expiry as Redis gets it: {@code SET ... PXAT} milliseconds, rounded up like the script. */
    default long expiresAtMs() {
        return (long) Math.ceil(expiresAtMicros() / 1000);
    }
}
