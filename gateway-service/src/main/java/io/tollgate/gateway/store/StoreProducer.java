package io.tollgate.gateway.store;

import java.time.Clock;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.tollgate.gateway.config.GatewayConfig;
import io.vertx.redis.client.Redis;

/** Picks the counter store named by {@code tollgate.store.type}; the Redis client is only built when used. */
@ApplicationScoped
class StoreProducer {

    private static final Logger LOG = Logger.getLogger(StoreProducer.class);

    @Produces
    @ApplicationScoped
    CounterStore counterStore(GatewayConfig config, Instance<Redis> redis,
            @ConfigProperty(name = "quarkus.redis.client-type", defaultValue = "standalone") String clientType) {
        return switch (config.store().type()) {
            case MEMORY -> {
                LOG.warn("tollgate.store.type=memory: counts are exact for this one gateway only");
                yield new InMemoryCounterStore(Clock.systemUTC());
            }
            case REDIS -> new RedisCounterStore(redis.get(), config.store().coalesce(),
                    "cluster".equalsIgnoreCase(clientType));
        };
    }
}
