package io.tollgate.counter;

/** The reference model of {@code gcra.lua}: emission interval = period / limit, capacity = burst. */
final class GcraModel implements CounterModel {

    static final GcraModel INSTANCE = new GcraModel();

    /** Stored as {@code struct.pack('<c1ddd', 'g', tat_us, interval_us, burst)}. */
    record State(double tat, double interval, double burst) implements BucketState {

        @Override
        public double expiresAtMicros() {
            return tat;
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
        double tat = tat(s, now, interval, burst);
        double newTat = tat + cost * interval;
        double allowAt = newTat - cap;
        long leftUnspent = (long) Math.floor((cap - (tat - now)) / interval);
        long resetMs = CounterModel.ceilMs(tat - now);
        if (now >= allowAt) {
            long remaining = (long) Math.max(0, Math.floor((cap - (newTat - now)) / interval));
            Decision decision = new Decision(true, remaining, 0, CounterModel.ceilMs(newTat - now));
            return new Step(decision, new State(newTat, interval, burst), leftUnspent, resetMs);
        }
        long retryMs = Decision.RETRY_NEVER;
        if (cost <= burst) {
            retryMs = CounterModel.ceilMs(allowAt - now);
            double later = now + retryMs * 1000.0;
            while (later < tat(s, later, interval, burst) + cost * interval - cap) {
                retryMs = retryMs + 1;
                later = now + retryMs * 1000.0;
            }
        }
        long remaining = Math.max(0, leftUnspent);
        return new Step(new Decision(false, remaining, retryMs, resetMs), null, remaining, resetMs);
    }

    /** The Lua's {@code gcra_tat}: the tat at now, converted when the policy changed. */
    private static double tat(State s, double now, double interval, double burst) {
        if (s == null || s.tat() <= now) {
            return now;
        }
        if (s.interval() == interval && s.burst() == burst) {
            return s.tat();
        }
        double held = Math.min(burst, s.burst() - (s.tat() - now) / s.interval());
        return now + (burst - held) * interval;
    }
}
