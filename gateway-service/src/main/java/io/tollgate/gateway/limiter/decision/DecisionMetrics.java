package io.tollgate.gateway.limiter.decision;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.domain.Rule;

/**
 * {@code tollgate_decisions_total{rule,outcome}}. A request costs one map lookup by rule id and an array
 * read; each (rule, outcome) counter is registered on its first decision.
 */
@ApplicationScoped
public class DecisionMetrics {

    private static final Outcome[] OUTCOMES = Outcome.values();

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, AtomicReferenceArray<Counter>> byRule = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> overadmitted = new ConcurrentHashMap<>();

    DecisionMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * The rule of the start-up warm-up's own requests (the warm-up's {@code WarmupGate}): traffic no user sent,
     * counted by {@code tollgate_warmup_requests_total}, never in the user's decisions, top or alerts.
     */
    public static final String WARMUP_RULE = "tollgate.warmup";

    /** Whether decisions of {@code rule} are the user's to see: all but the warm-up's. */
    public static boolean counted(Rule rule) {
        return !rule.id().equals(WARMUP_RULE);
    }

    /** Counts {@code decision} under its rule and outcome. */
    public void count(RuleDecision decision) {
        if (!counted(decision.rule())) {
            return;
        }
        String rule = decision.rule().id();
        Outcome outcome = decision.outcome();
        AtomicReferenceArray<Counter> counters = byRule.computeIfAbsent(rule,
                id -> new AtomicReferenceArray<>(OUTCOMES.length));
        Counter counter = counters.get(outcome.ordinal());
        if (counter == null) {
            counter = Counter.builder("tollgate.decisions")
                    .description("rate-limit decisions by rule and outcome")
                    .tag("rule", rule)
                    .tag("outcome", outcome.label())
                    .register(registry); // idempotent: a racing registration gets the same counter
            counters.set(outcome.ordinal(), counter);
        }
        counter.increment();
    }

    /**
     * {@code tollgate_fallback_overadmitted_total{rule}}: requests a failure mode let through that the store,
     * answering late, rejected under {@code rule}.
     */
    public void overadmitted(Rule rule) {
        if (!counted(rule)) {
            return;
        }
        overadmitted.computeIfAbsent(rule.id(), id -> Counter.builder("tollgate.fallback.overadmitted")
                .description("requests a failure mode admitted that the store, answering late, rejected")
                .tag("rule", id)
                .register(registry)).increment();
    }
}
