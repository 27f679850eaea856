package io.tollgate.gateway.limiter;

import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** {@code tollgate_decisions_total{rule,outcome}}; counters are looked up once per (rule, outcome), not per request. */
@ApplicationScoped
class DecisionMetrics {

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();

    DecisionMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void count(RuleDecision decision) {
        String rule = decision.rule().id();
        Outcome outcome = decision.outcome();
        counters.computeIfAbsent(rule + '\n' + outcome.label(), k -> Counter.builder("tollgate.decisions")
                .description("rate-limit decisions by rule and outcome")
                .tag("rule", rule)
                .tag("outcome", outcome.label())
                .register(registry))
                .increment();
    }
}
