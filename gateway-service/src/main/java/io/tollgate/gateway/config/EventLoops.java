package io.tollgate.gateway.config;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.ConfigProvider;

import io.quarkus.vertx.VertxOptionsCustomizer;
import io.vertx.core.VertxOptions;

/**
 * One event loop per core, where Quarkus's default is two: nothing on the gateway's request path blocks,
 * so a second loop per core only adds thread switches, and each loop holds its own Redis connection and
 * upstream pool (bench/gateway/limiter-overhead.sh compares the CPU per request).
 * {@code quarkus.vertx.event-loops-pool-size}, when set, still decides.
 */
@Singleton
class EventLoops implements VertxOptionsCustomizer {

    static final String PROPERTY = "quarkus.vertx.event-loops-pool-size";

    @Override
    public void accept(VertxOptions options) {
        if (ConfigProvider.getConfig().getOptionalValue(PROPERTY, Integer.class).isEmpty()) {
            options.setEventLoopPoolSize(Runtime.getRuntime().availableProcessors());
        }
    }
}
