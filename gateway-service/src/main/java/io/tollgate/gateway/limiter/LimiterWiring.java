package io.tollgate.gateway.limiter;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.guard.CircuitBreaker;
import io.tollgate.gateway.limiter.guard.FailurePolicy;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.limiter.lease.Leases;
import io.tollgate.gateway.limiter.rejection.RejectedClients;
import io.tollgate.gateway.limiter.rejection.RejectionCache;
import io.tollgate.gateway.limiter.settlement.Settlements;
import io.tollgate.gateway.rules.LiveGateways;
import io.tollgate.gateway.store.CounterStore;
import io.vertx.core.Vertx;

/**
 * Builds the {@link Limiter} and the parts it decides with, from configuration: the store behind its time limit
 * and circuit breaker ({@code tollgate.store.*}), the failure modes, the remembered rejections, the calendar
 * windows, the settlements ({@code tollgate.settle.*}) and, when {@code tollgate.leases.enabled}, the token leases
 * with their sweep. The parts are plain objects handed to the limiter: a request calls them directly, through no
 * CDI proxy.
 */
@Singleton
class LimiterWiring {

    @Produces
    @ApplicationScoped
    Limiter limiter(KeyResolver keys, Directory directory, CounterStore counterStore, GatewayConfig config,
            LiveGateways live, DecisionMetrics metrics, MeterRegistry registry, Vertx vertx,
            RejectedClients rejectedClients) {
        GatewayConfig.Breaker breaker = config.store().breaker();
        GuardedStore store = new GuardedStore(counterStore, vertx, config.store().timeout(),
                breaker.unansweredAfter(),
                new CircuitBreaker(breaker.window(), breaker.failureRate(), breaker.openFor().toNanos(),
                        System::nanoTime),
                registry);
        Settlements settlements = new Settlements(store, vertx, config.settle().maxUsage(),
                config.settle().maxDecodedSize().asLongValue(), registry);
        Leases leases = null;
        if (config.leases().enabled()) {
            leases = new Leases(store, System::nanoTime, live::count, registry);
            leases.sweepEvery(vertx);
        }
        return new Limiter(keys, directory, store, new FailurePolicy(live, System::nanoTime),
                new RejectionCache(System::nanoTime), new CalendarWindows(System::currentTimeMillis), metrics,
                rejectedClients, settlements, leases);
    }
}
