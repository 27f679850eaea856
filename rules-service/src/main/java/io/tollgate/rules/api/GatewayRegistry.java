package io.tollgate.rules.api;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.config.RulesConfig;

/**
 * The gateways that poll this instance, by the {@code Tollgate-Gateway} id they send, and how many were seen
 * within {@code tollgate.gateways.live-window}. In-process: behind a load balancer, each rules-service
 * instance counts only the gateways that polled IT (see the README); with one instance, or sticky polling,
 * the count is the fleet's.
 */
@ApplicationScoped
public class GatewayRegistry {

    static final int MAX_ID_LENGTH = 200;

    private final Map<String, Long> lastSeenMs = new ConcurrentHashMap<>();
    private final Clock clock;
    private final long windowMs;
    private final int maxTracked;

    GatewayRegistry(Clock clock, RulesConfig config, MeterRegistry meters) {
        this.clock = clock;
        this.windowMs = config.gateways().liveWindow().toMillis();
        this.maxTracked = config.gateways().maxTracked();
        meters.gauge("tollgate.rules.gateways.live", this, GatewayRegistry::live);
    }

    /** Notes that gateway {@code id} asked just now; blank or over-long ids are ignored. */
    public void seen(String id) {
        if (id == null || id.isBlank() || id.length() > MAX_ID_LENGTH) {
            return;
        }
        long now = clock.millis();
        if (lastSeenMs.size() >= maxTracked && !lastSeenMs.containsKey(id)) {
            forgetStale(now);
            if (lastSeenMs.size() >= maxTracked) {
                return; // bounded memory beats counting a flood of made-up ids
            }
        }
        lastSeenMs.put(id, now);
    }

    /** How many distinct gateways were seen within the live window. */
    public int live() {
        forgetStale(clock.millis());
        return lastSeenMs.size();
    }

    private void forgetStale(long now) {
        lastSeenMs.values().removeIf(seen -> now - seen > windowMs);
    }
}
