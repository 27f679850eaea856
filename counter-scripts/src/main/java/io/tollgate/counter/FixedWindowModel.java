package io.tollgate.counter;

/** The reference model of {@code fixed_window.lua}: at most limit per aligned window of period. */
final class FixedWindowModel implements CounterModel {

    static final FixedWindowModel INSTANCE = new FixedWindowModel();

    /** Stored as {@code struct.pack('<c1dd', 'f', window_end_us, count)}. */
    record State(double windowEnd, double count) implements BucketState {

        @Override
        public double expiresAtMicros() {
            return windowEnd;
        }
    }

    private FixedWindowModel() {
    }

    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        double now = nowMicros;
        double limit = policy.limit();
        double windowEnd = windowEnd(policy, now);
        double count = count(stored, windowEnd);
        long leftUnspent = (long) (limit - count);
        long resetMs = CounterModel.ceilMs(windowEnd - now);
        if (count + cost <= limit) {
            Decision decision = new Decision(true, (long) (limit - count - cost), 0, resetMs);
            return new Step(decision, new State(windowEnd, count + cost), leftUnspent, resetMs);
        }
        long retryMs = cost > limit ? Decision.RETRY_NEVER : resetMs;
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }

    /** The window's count grows by delta (beyond limit, if so), or shrinks, never below 0. */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        double now = nowMicros;
        double windowEnd = windowEnd(policy, now);
        double count = Math.max(0, count(stored, windowEnd) + delta);
        Decision decision = new Decision(true, (long) (policy.limit() - count), 0, CounterModel.ceilMs(windowEnd - now));
        return CounterModel.settled(decision, new State(windowEnd, count), delta);
    }

    private static double windowEnd(Policy policy, double now) {
        double period = policy.periodMs() * 1000.0;
        return now - luaMod(now, period) + period;
    }

    private static double count(BucketState stored, double windowEnd) {
        return stored instanceof State s && s.windowEnd() == windowEnd ? s.count() : 0;
    }

    /** Lua 5.1's {@code a % b}: {@code a - floor(a / b) * b}. */
    static double luaMod(double a, double b) {
        return a - Math.floor(a / b) * b;
    }
}
