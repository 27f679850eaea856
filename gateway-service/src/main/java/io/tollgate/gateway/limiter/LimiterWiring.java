package io.tollgate.gateway.limiter;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.decision.DecisionMetrics;
import io.tollgate.gateway.limiter.guard.CircuitBreaker;
import io.tollgate.gateway.limiter.guard.FailurePolicy;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.limiter.guard.StoreCheck;
import io.tollgate.gateway.limiter.lease.Leases;
import io.tollgate.gateway.limiter.lease.TokenLeasing;
import io.tollgate.gateway.limiter.pipeline.Pipeline;
import io.tollgate.gateway.limiter.pipeline.Stage;
import io.tollgate.gateway.limiter.rejection.RejectedClients;
import io.tollgate.gateway.limiter.rejection.RejectionCache;
import io.tollgate.gateway.limiter.rejection.RememberedRejections;
import io.tollgate.gateway.limiter.settlement.Settlements;
import io.tollgate.gateway.limiter.targets.CalendarWindows;
import io.tollgate.gateway.limiter.targets.Targets;
import io.tollgate.gateway.store.CounterStore;
import io.tollgate.gateway.sync.LiveGateways;
import io.vertx.core.Vertx;

/**
 * Builds the {@link Limiter} from configuration: the {@link Targets} that turn a request into buckets, and the
 * pipeline of stages a group of buckets passes through: token leases when {@code tollgate.leases.enabled} (with
 * their sweep), remembered rejections when {@code tollgate.rejections.remembered}, and last the store behind its
 * time limit and circuit breaker ({@code tollgate.store.*}) with the failure modes; and the settlements
 * ({@code tollgate.settle.*}). The parts are plain objects handed to the limiter: a request calls them directly,
 * through no CDI proxy.
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
        RejectionCache rejections = new RejectionCache(System::nanoTime);
        List<Stage> stages = new ArrayList<>(3);
        if (config.leases().enabled()) {
            Leases leases = new Leases(store, System::nanoTime, live::count, registry);
            leases.sweepEvery(vertx);
            stages.add(new TokenLeasing(leases));
        }
        if (config.rejections().remembered()) {
            stages.add(new RememberedRejections(rejections));
        }
        stages.add(new StoreCheck(store, new FailurePolicy(live, System::nanoTime), metrics));
        Targets targets = new Targets(keys, directory, new CalendarWindows(System::currentTimeMillis),
                config.leases().enabled());
        return new Limiter(targets, new Pipeline(stages), rejections, metrics, rejectedClients, settlements);
    }
}
