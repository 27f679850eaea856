package io.tollgate.counter;

/** The reference model of {@code calendar_window.lua}: at most limit in the window that ends where the policy says. */
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
        double windowEnd = policy.periodMs() * 1_000_000.0;
        double count = 0;
        if (stored instanceof State s && s.windowEnd() == windowEnd && now < windowEnd) {
            count = s.count();
        }
        long leftUnspent = (long) Math.max(0, limit - count);
        long resetMs = Math.max(0, CounterModel.ceilMs(windowEnd - now));
        if (count + cost <= limit) {
            Decision decision = new Decision(true, (long) (limit - count - cost), 0, resetMs);
            State next = new State(windowEnd, count + cost, Math.max(windowEnd, now + 1_000));
            return new Step(decision, next, leftUnspent, resetMs);
        }
        long retryMs = cost > limit ? Decision.RETRY_NEVER : Math.max(1, resetMs);
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }
}
