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
        double period = policy.periodMs() * 1000.0;
        double windowEnd = now - luaMod(now, period) + period;
        double count = 0;
        if (stored instanceof State s && s.windowEnd() == windowEnd) {
            count = s.count();
        }
        long leftUnspent = (long) Math.max(0, limit - count);
        long resetMs = CounterModel.ceilMs(windowEnd - now);
        if (count + cost <= limit) {
            Decision decision = new Decision(true, (long) (limit - count - cost), 0, resetMs);
            return new Step(decision, new State(windowEnd, count + cost), leftUnspent, resetMs);
        }
        long retryMs = cost > limit ? Decision.RETRY_NEVER : resetMs;
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }

    /** Lua 5.1's {@code a % b}: {@code a - floor(a / b) * b}. */
    static double luaMod(double a, double b) {
        return a - Math.floor(a / b) * b;
    }
}
