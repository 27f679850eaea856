package io.tollgate.counter;

/**
 * The reference model of {@code calendar_window.lua}: at most limit in the window that ends where the policy says
 * ({@link Policy#windowEndSecond}).
 */
final class CalendarWindowModel implements CounterModel {

    static final CalendarWindowModel INSTANCE = new CalendarWindowModel();

    /** Stored as {@code struct.pack('<c1dd', 'c', window_end_us, count)}. */
    record State(double windowEnd, double count, double expiresAtMicros) implements BucketState {
    }

    private CalendarWindowModel() {
    }

    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        double now = nowMicros;
        double limit = policy.limit();
        double windowEnd = policy.windowEndSecond() * 1_000_000.0;
        double count = count(stored, windowEnd, now);
        long leftUnspent = (long) (limit - count);
        long resetMs = Math.max(0, CounterModel.ceilMs(windowEnd - now));
        if (count + cost <= limit) {
            Decision decision = new Decision(true, (long) (limit - count - cost), 0, resetMs);
            State next = new State(windowEnd, count + cost, Math.max(windowEnd, now + 1_000));
            return new Step(decision, next, leftUnspent, resetMs);
        }
        long retryMs = cost > limit ? Decision.RETRY_NEVER : Math.max(1, resetMs);
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }

    /** The window's count grows by delta (beyond limit, if so), or shrinks, never below 0. */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        double now = nowMicros;
        double windowEnd = policy.windowEndSecond() * 1_000_000.0;
        double count = Math.max(0, count(stored, windowEnd, now) + delta);
        Decision decision = new Decision(true, (long) (policy.limit() - count), 0,
                Math.max(0, CounterModel.ceilMs(windowEnd - now)));
        return CounterModel.settled(decision, new State(windowEnd, count, Math.max(windowEnd, now + 1_000)), delta);
    }

    private static double count(BucketState stored, double windowEnd, double now) {
        return stored instanceof State s && s.windowEnd() == windowEnd && now < windowEnd ? s.count() : 0;
    }
}
