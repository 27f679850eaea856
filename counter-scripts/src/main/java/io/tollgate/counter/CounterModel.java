package io.tollgate.counter;

/**
 * A pure-Java reference model of one algorithm's Lua {@code decide}: the same arithmetic in doubles,
 * operation by operation, so its decisions equal the script's exactly.
 */
interface CounterModel {

    /**
     * Decides one bucket.
     *
     * @param stored
     * what the bucket holds, or null when absent; a state of another algorithm counts as absent
     * @param nowMicros
     * Unix time in microseconds
     */
    Step decide(BucketState stored, Policy policy, long nowMicros, long cost);

    /**
     * Settles one bucket, as the Lua {@code decide} of a settled key ({@code s<delta>}): a positive {@code delta} is
     * spent whatever the bucket holds (it may go into debt), a negative one given back (never above the capacity),
     * 0 changes nothing. The step's decision is the settled key's reply (always allowed); its next state is what is
     * written, null when {@code delta} is 0.
     *
     * @param stored
     * what the bucket holds, or null when absent; a state of another algorithm counts as absent
     * @throws IllegalArgumentException
     * for an algorithm that is not settled ({@code concurrency})
     */
    Step settle(BucketState stored, Policy policy, long nowMicros, long delta);

    /**
     * The Lua {@code peek} of one bucket: its own {@code decide} as a check of cost 1, of which only the view of
     * nothing spent is kept.
     *
     * @param stored
     * what the bucket holds, or null when absent (then it peeks as full and does not exist)
     */
    default Peek peek(BucketState stored, Policy policy, long nowMicros) {
        Step step = decide(stored, policy, nowMicros, 1);
        return new Peek(stored != null, step.remainingUnspent(), step.resetUnspentMs());
    }

    /** The model of an algorithm. */
    static CounterModel of(Algorithm algorithm) {
        return switch (algorithm) {
            case TOKEN_BUCKET -> TokenBucketModel.INSTANCE;
            case GCRA -> GcraModel.INSTANCE;
            case SLIDING_WINDOW -> SlidingWindowModel.INSTANCE;
            case FIXED_WINDOW -> FixedWindowModel.INSTANCE;
            case CALENDAR_WINDOW -> CalendarWindowModel.INSTANCE;
            case CONCURRENCY -> ConcurrencyModel.INSTANCE;
        };
    }

    /** The step of a settlement: its reply, and the state written ({@code delta} 0 writes nothing). */
    static Step settled(Decision decision, BucketState next, long delta) {
        return new Step(decision, delta == 0 ? null : next, decision.remaining(), decision.resetMs());
    }

    /** Milliseconds rounded up, as the scripts' {@code math.ceil(us / 1000)}. */
    static long ceilMs(double micros) {
        return (long) Math.ceil(micros / 1000);
    }
}
