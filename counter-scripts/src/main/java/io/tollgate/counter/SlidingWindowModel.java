package io.tollgate.counter;

/**
 * The reference model of {@code sliding_window.lua}: estimate = previous x (1 - elapsed / window) + current.
 */
final class SlidingWindowModel implements CounterModel {

    static final SlidingWindowModel INSTANCE = new SlidingWindowModel();

    /** The Lua's {@code SW_EPSILON}: an estimate this close to whole counts as whole. */
    static final double EPSILON = 1e-9;

    /** Stored as {@code struct.pack('<c1dddd', 's', window_start_us, period_us, previous, current)}. */
    record State(double windowStart, double period, double previous, double current) implements BucketState {

        @Override
        public double expiresAtMicros() {
            return windowStart + 2 * period;
        }
    }

    private SlidingWindowModel() {
    }

    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        double now = nowMicros;
        double limit = policy.limit();
        double period = policy.periodMs() * 1000.0;
        double start = now - FixedWindowModel.luaMod(now, period);
        double[] counts = counts(stored, start, period);
        double previous = counts[0];
        double current = counts[1];
        double estimate = estimate(start, previous, current, period, now);
        long leftUnspent = (long) Math.floor(limit - estimate + EPSILON);
        long resetMs = resetMs(start, previous, current, period, now);
        if (estimate + cost <= limit + EPSILON) {
            Decision decision = new Decision(true, (long) Math.max(0, Math.floor(limit - estimate - cost + EPSILON)), 0,
                    resetMs(start, previous, current + cost, period, now));
            return new Step(decision, new State(start, period, previous, current + cost), leftUnspent, resetMs);
        }
        long retryMs = Decision.RETRY_NEVER;
        if (cost <= limit) {
            double readyAt;
            if (previous > 0 && current + cost <= limit) {
                readyAt = start + period * (1 - (limit - current - cost) / previous);
            } else {
                readyAt = start + period + period * (1 - (limit - cost) / current);
            }
            retryMs = Math.max(1, CounterModel.ceilMs(readyAt - now));
            while (estimate(start, previous, current, period, now + retryMs * 1000.0) + cost > limit + EPSILON) {
                retryMs = retryMs + 1;
            }
        }
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }

    /**
     * The current window's count grows by delta (the estimate beyond limit, if so); a negative one is given back
     * from the current window's count, then from the previous one's, neither below 0.
     */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        double now = nowMicros;
        double period = policy.periodMs() * 1000.0;
        double start = now - FixedWindowModel.luaMod(now, period);
        double[] counts = counts(stored, start, period);
        double previous = counts[0];
        double current = counts[1];
        if (delta >= 0) {
            current = current + delta;
        } else {
            double back = Math.min(current, -delta);
            current = current - back;
            previous = Math.max(0, previous + delta + back);
        }
        Decision decision = new Decision(true,
                (long) Math.floor(policy.limit() - estimate(start, previous, current, period, now) + EPSILON), 0,
                resetMs(start, previous, current, period, now));
        return CounterModel.settled(decision, new State(start, period, previous, current), delta);
    }

    /** The previous and current counts of the window at start, from a stored state. */
    private static double[] counts(BucketState stored, double start, double period) {
        if (stored instanceof State s && s.period() == period) {
            if (s.windowStart() == start) {
                return new double[]{s.previous(), s.current()};
            } else if (s.windowStart() == start - period) {
                return new double[]{s.current(), 0};
            }
        }
        return new double[]{0, 0};
    }

    /** The Lua's {@code sw_estimate}: the estimate at time t from the counts of the window at start. */
    private static double estimate(double start, double previous, double current, double period, double t) {
        double s = t - FixedWindowModel.luaMod(t, period);
        if (s == start) {
            return previous * (1 - (t - s) / period) + current;
        } else if (s == start + period) {
            return current * (1 - (t - s) / period) + 0;
        }
        return 0;
    }

    /** The Lua's {@code sw_reset_ms}: until the estimate is 0. */
    private static long resetMs(double start, double previous, double current, double period, double now) {
        if (current > 0) {
            return CounterModel.ceilMs(start + 2 * period - now);
        } else if (previous > 0) {
            return CounterModel.ceilMs(start + period - now);
        }
        return 0;
    }
}
