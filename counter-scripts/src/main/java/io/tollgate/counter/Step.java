package io.tollgate.counter;

/**
 * The outcome of one bucket's decision, as a Lua algorithm's {@code decide} returns it.
 *
 * @param decision
 * the reply when every bucket of the call allows (the spent view)
 * @param next
 * the state to store when every bucket allows; null when this bucket rejects
 * @param remainingUnspent
 * whole requests held when nothing is spent (another bucket rejected)
 * @param resetUnspentMs
 * reset_ms when nothing is spent
 */
record Step(Decision decision, BucketState next, long remainingUnspent, long resetUnspentMs) {

    /** The reply when another bucket of the call rejected: nothing spent here. */
    Decision unspent() {
        if (!decision.allowed()) {
            return decision;
        }
        return new Decision(true, remainingUnspent, 0, resetUnspentMs);
    }
}
