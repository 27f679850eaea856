package io.tollgate.gateway.warmup;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** What the gateway does at start before it reports ready ({@link Warmup}). */
@ConfigMapping(prefix = "tollgate.warmup")
public interface WarmupConfig {

    /**
     * The longest the warm-up holds readiness back once the gateway listens: past it the gateway reports ready
     * whatever the warm-up got through (a store that cannot answer must not keep it out of the load balancer).
     */
    @WithDefault("3s")
    Duration maxTime();

    /**
     * How many requests the gateway sends itself through its whole request path (rules, limiter and store,
     * proxy) to a loopback target of its own before it reports ready, unless {@link #maxTime()} ends it first;
     * 0 leaves only the store checks.
     */
    @WithDefault("5000")
    int requests();
}
