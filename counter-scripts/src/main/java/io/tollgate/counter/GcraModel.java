package io.tollgate.counter;

/**
 * The reference model of {@code gcra.lua}: emission interval = period / limit, capacity = burst; the
 * theoretical arrival time kept as {@code since + debt}.
 */
final class GcraModel implements CounterModel {

    static final GcraModel INSTANCE = new GcraModel();

    /** The Lua's {@code GCRA_EPSILON}: requests this close to whole count as whole. */
    static final double EPSILON = 1e-9;

    /** The Lua's {@code GCRA_HORIZON}: beyond it a double no longer counts milliseconds one by one. */
    static final double HORIZON = 0x1p53;

    /**
     * Stored as {@code struct.pack('<c1dddd', 'g', since_us, debt_us, interval_us, burst)}; debt beyond burst x
     * interval in debt.
     */
    record State(double since, double debt, double interval, double burst) implements BucketState {

        /** A microsecond past since + debt: by then the Lua's own arithmetic surely finds the debt paid. */
        @Override
        public double expiresAtMicros() {
            return since + debt + 1;
        }
    }

    private GcraModel() {
    }

    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        double now = nowMicros;
        double burst = policy.burst();
        double interval = interval(policy);
        double cap = burst * interval;
        State s = stored instanceof State state ? state : null;
        double debt = debt(s, now, interval, burst);
        double newDebt = debt + cost * interval;
        double left = (cap - newDebt) / interval + EPSILON;
        long leftUnspent = (long) Math.floor((cap - debt) / interval + EPSILON);
        long resetMs = CounterModel.ceilMs(debt);
        if (left >= 0) {
            Decision decision = new Decision(true, (long) Math.floor(left), 0, CounterModel.ceilMs(newDebt));
            return new Step(decision, new State(now, newDebt, interval, burst), leftUnspent, resetMs);
        }
        long retryMs = Decision.RETRY_NEVER;
        if (cost <= burst) {
            retryMs = (long) retryMs(s, now, interval, burst, cost, cap, newDebt);
        }
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
    }

    /** The debt grows by delta x interval (beyond the capacity, if so), or shrinks, never below 0 (full). */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        double interval = interval(policy);
        double cap = policy.burst() * interval;
        State s = stored instanceof State state ? state : null;
        double settled = Math.max(0, debt(s, nowMicros, interval, policy.burst()) + delta * interval);
        Decision decision = new Decision(true, (long) Math.floor((cap - settled) / interval + EPSILON), 0,
                CounterModel.ceilMs(settled));
        return CounterModel.settled(decision, new State(nowMicros, settled, interval, policy.burst()), delta);
    }

    private static double interval(Policy policy) {
        return policy.periodMs() * 1000.0 / policy.limit();
    }

    /** The Lua's {@code gcra_retry_ms}: the first whole ms from now at which a check of cost fits. */
    private static double retryMs(State s, double now, double interval, double burst, long cost, double cap,
            double newDebt) {
        double wait = newDebt - cap;
        if (s != null && !(s.interval() == interval && s.burst() == burst)) {
            wait = Math.min(wait * s.interval() / interval, s.since() + s.debt() - now);
        }
        double ms = Math.max(1, Math.ceil(wait / 1000));
        if (ms >= HORIZON) {
            return ms;
        }
        while (ms > 1 && fits(s, now, ms - 1, interval, burst, cost, cap)) {
            ms = ms - 1;
        }
        while (!fits(s, now, ms, interval, burst, cost, cap)) {
            ms = ms + 1;
        }
        return ms;
    }

    /** The Lua's {@code gcra_fits}: whether a check of cost fits ms milliseconds from now. */
    private static boolean fits(State s, double now, double ms, double interval, double burst, long cost, double cap) {
        return (cap - (debt(s, now + ms * 1000, interval, burst) + cost * interval)) / interval + EPSILON >= 0;
    }

    /** The Lua's {@code gcra_debt}: the debt at now, converted when the policy changed. */
    private static double debt(State s, double now, double interval, double burst) {
        if (s == null) {
            return 0;
        }
        double d = s.debt() - (now - s.since());
        if (d <= 0) {
            return 0;
        }
        if (s.interval() == interval && s.burst() == burst) {
            return d;
        }
        double held = Math.min(burst, s.burst() - d / s.interval());
        return (burst - held) * interval;
    }
}
