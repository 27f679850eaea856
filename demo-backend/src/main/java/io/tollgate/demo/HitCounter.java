package io.tollgate.demo;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * What the backend received: requests in all, and per API key ({@code X-API-Key}, or "-" without one).
 */
@ApplicationScoped
class HitCounter {

    private final LongAdder total = new LongAdder();
    private final Map<String, LongAdder> byApiKey = new ConcurrentHashMap<>();

    void record(String apiKey) {
        total.increment();
        byApiKey.computeIfAbsent(apiKey == null || apiKey.isEmpty() ? "-" : apiKey, k -> new LongAdder()).increment();
    }

    long total() {
        return total.sum();
    }

    Map<String, Long> byApiKey() {
        Map<String, Long> copy = new TreeMap<>();
        byApiKey.forEach((key, count) -> copy.put(key, count.sum()));
        return copy;
    }

    void reset() {
        total.reset();
        byApiKey.clear();
    }
}
