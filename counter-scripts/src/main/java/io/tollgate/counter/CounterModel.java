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
        };
    }

    /** Milliseconds rounded up, as the scripts' {@code math.ceil(us / 1000)}. */
    static long ceilMs(double micros) {
        return (long) Math.ceil(micros / 1000);
    }
}
