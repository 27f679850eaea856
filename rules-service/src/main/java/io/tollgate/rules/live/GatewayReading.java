package io.tollgate.rules.live;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What one read of a gateway's {@code /q/metrics} says: its decision counters by rule and outcome, its store
 * breaker's state, its store's counts of errors and of answered calls, and when its process started.
 *
 * @param decisions
 * {@code tollgate_decisions_total} by rule and outcome
 * @param breaker
 * {@code tollgate_store_breaker_state}: {@code closed}, {@code open}, {@code half_open}, or null when absent
 * @param storeErrors
 * {@code tollgate_store_errors_total} of the kinds that mean the store failed a call (not {@code breaker_open})
 * @param storeAnswers
 * {@code tollgate_store_latency_seconds_count}: calls the store answered
 * @param startedAt
 * {@code process_start_time_seconds}, NaN when absent: a change means the gateway restarted
 */
record GatewayReading(Map<Counter, Double> decisions, String breaker, double storeErrors, double storeAnswers,
        double startedAt) {

    /** One decision counter. */
    record Counter(String rule, String outcome) {
    }

    static final String DECISIONS = "tollgate_decisions_total";
    static final String BREAKER = "tollgate_store_breaker_state";
    static final String ERRORS = "tollgate_store_errors_total";
    static final String ANSWERS = "tollgate_store_latency_seconds_count";
    static final String STARTED = "process_start_time_seconds";
    private static final Set<String> NAMES = Set.of(DECISIONS, BREAKER, ERRORS, ANSWERS, STARTED);
    /** The breaker gauge's values, by ordinal ({@code CircuitBreaker.State} of the gateway). */
    private static final String[] BREAKER_STATES = {"closed", "open", "half_open"};
    /** At most this many decision counters are read from one gateway: memory stays bounded whatever it says. */
    static final int MAX_COUNTERS = 10_000;

    static GatewayReading of(String metrics) {
        Map<Counter, Double> decisions = new HashMap<>();
        String breaker = null;
        double errors = 0;
        double answers = 0;
        double started = Double.NaN;
        for (PrometheusText.Sample s : PrometheusText.parse(metrics, NAMES)) {
            switch (s.name()) {
                case DECISIONS -> {
                    String rule = s.labels().get("rule");
                    String outcome = s.labels().get("outcome");
                    if (rule != null && outcome != null && decisions.size() < MAX_COUNTERS) {
                        decisions.merge(new Counter(rule, outcome), s.value(), Double::sum);
                    }
                }
                case BREAKER -> breaker = breakerState(s.value());
                case ERRORS -> errors += "breaker_open".equals(s.labels().get("kind")) ? 0 : s.value();
                case ANSWERS -> answers += s.value();
                default -> started = s.value();
            }
        }
        return new GatewayReading(decisions, breaker, errors, answers, started);
    }

    private static String breakerState(double value) {
        int ordinal = (int) value;
        return ordinal >= 0 && ordinal < BREAKER_STATES.length && ordinal == value ? BREAKER_STATES[ordinal] : null;
    }
}
