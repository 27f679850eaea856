package io.tollgate.counter;

/**
 * The reference model of {@code gcra.lua}: emission interval = period / limit, capacity = burst; the
 * theoretical arrival time kept as {@code since + debt}.
 */
final class GcraModel implements CounterModel {

    static final GcraModel INSTANCE = new GcraModel();

    /** The Lua's {@code GCRA_EPSILON}: requests this close to whole count as whole. */
    static final double EPSILON = 1e-9;

    /** Stored as {@code struct.pack('<c1dddd', 'g', since_us, debt_us, interval_us, burst)}. */
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
        double interval = policy.periodMs() * 1000.0 / policy.limit();
        double cap = burst * interval;
        State s = stored instanceof State state ? state : null;
        double debt = debt(s, now, interval, burst);
        double newDebt = debt + cost * interval;
        double left = (cap - newDebt) / interval + EPSILON;
        long leftUnspent = (long) Math.max(0, Math.floor((cap - debt) / interval + EPSILON));
        long resetMs = CounterModel.ceilMs(debt);
        if (left >= 0) {
            Decision decision = new Decision(true, (long) Math.floor(left), 0, CounterModel.ceilMs(newDebt));
            return new Step(decision, new State(now, newDebt, interval, burst), leftUnspent, resetMs);
        }
        long retryMs = Decision.RETRY_NEVER;
        if (cost <= burst) {
            retryMs = Math.max(1, CounterModel.ceilMs(newDebt - cap) - 1);
            while ((cap - (debt(s, now + retryMs * 1000.0, interval, burst) + cost * interval)) / interval
                    + EPSILON < 0) {
                retryMs = retryMs + 1;
            }
        }
        return new Step(new Decision(false, leftUnspent, retryMs, resetMs), null, leftUnspent, resetMs);
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
