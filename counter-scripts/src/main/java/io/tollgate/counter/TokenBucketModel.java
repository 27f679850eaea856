package io.tollgate.counter;

/** The reference model of {@code token_bucket.lua}: rate = limit / period, capacity = burst. */
final class TokenBucketModel implements CounterModel {

    static final TokenBucketModel INSTANCE = new TokenBucketModel();

    /** The Lua's {@code TB_EPSILON}: tokens this close to whole count as whole. */
    static final double EPSILON = 1e-9;

    /** The Lua's {@code TB_HORIZON}: beyond it a double no longer counts microseconds one by one. */
    static final double HORIZON = 0x1p53;

    /** Stored as {@code struct.pack('<c1ddd', 't', tokens, since_us, full_at_us)}; tokens below 0 in debt. */
    record State(double tokens, double since, double fullAt) implements BucketState {

        @Override
        public double expiresAtMicros() {
            return fullAt;
        }
    }

    private TokenBucketModel() {
    }

    @Override
    public Step decide(BucketState stored, Policy policy, long nowMicros, long cost) {
        double now = nowMicros;
        double burst = policy.burst();
        double rate = rate(policy);
        double held = burst;
        double since = now;
        double vanish = Double.NaN;
        if (stored instanceof State s && now < s.fullAt()) {
            held = s.tokens();
            since = s.since();
            vanish = s.fullAt();
        }
        double tokens = tokens(held, since, now, burst, rate);
        long resetMs = CounterModel.ceilMs(elapsedUntil(tokens, burst, rate, 0));
        if (cost <= tokens + EPSILON) {
            double left = Math.max(0, tokens - cost);
            double fullAt = now + elapsedUntil(left, burst, rate, 0);
            Decision decision = new Decision(true, (long) Math.floor(left + EPSILON), 0,
                    CounterModel.ceilMs(fullAt - now));
            return new Step(decision, new State(left, now, fullAt), (long) Math.floor(tokens + EPSILON), resetMs);
        }
        long retryMs = Decision.RETRY_NEVER;
        if (cost <= burst) {
            double readyAt = Math.min(vanish, since + elapsedUntil(held, cost, rate, EPSILON));
            retryMs = CounterModel.ceilMs(readyAt - now);
        }
        long remaining = (long) Math.floor(tokens + EPSILON);
        return new Step(new Decision(false, remaining, retryMs, resetMs), null, remaining, resetMs);
    }

    /** Tokens minus {@code delta}, capped at burst: below 0 is a debt, which the refill pays first. */
    @Override
    public Step settle(BucketState stored, Policy policy, long nowMicros, long delta) {
        double burst = policy.burst();
        double rate = rate(policy);
        double tokens = stored instanceof State s && nowMicros < s.fullAt()
                ? tokens(s.tokens(), s.since(), nowMicros, burst, rate)
                : burst;
        double left = Math.min(burst, tokens - delta);
        double fullAt = nowMicros + elapsedUntil(left, burst, rate, 0);
        Decision decision = new Decision(true, (long) Math.floor(left + EPSILON), 0,
                CounterModel.ceilMs(fullAt - nowMicros));
        return CounterModel.settled(decision, new State(left, nowMicros, fullAt), delta);
    }

    private static double rate(Policy policy) {
        return policy.limit() / (policy.periodMs() * 1000.0);
    }

    private static double tokens(double held, double since, double now, double burst, double rate) {
        return Math.min(burst, held + Math.max(0, now - since) * rate);
    }

    /**
     * The Lua's {@code tb_elapsed_until}: smallest whole µs e >= 0 with tokens + e * rate + slack >= target (the
     * estimate, past the horizon).
     */
    static double elapsedUntil(double tokens, double target, double rate, double slack) {
        double e = Math.max(0, Math.ceil((target - tokens) / rate) - 1);
        while (e < HORIZON && tokens + e * rate + slack < target) {
            e = e + 1;
        }
        return e;
    }
}
