package io.tollgate.gateway.limiter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import io.tollgate.counter.Decision;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The store behind a time limit and a circuit breaker, measured: every call either answers within
 * {@code tollgate.store.timeout} or fails, and an open breaker fails at once without calling.
 */
final class GuardedStore {

    /** Why a check did not reach or hear from the store. */
    static final class StoreUnavailable extends RuntimeException {

        private static final long serialVersionUID = 1L;

        StoreUnavailable(String reason) {
            super(reason, null, false, false);
        }
    }

    private static final StoreUnavailable BREAKER_OPEN = new StoreUnavailable("circuit breaker open");

    private final RateLimiter store;
    private final Duration timeout;
    private final CircuitBreaker breaker;
    private final Timer latency;
    private final Counter timeouts;
    private final Counter errors;
    private final Counter shortCircuits;

    GuardedStore(RateLimiter store, Duration timeout, CircuitBreaker breaker, MeterRegistry registry) {
        this.store = store;
        this.timeout = timeout;
        this.breaker = breaker;
        this.latency = Timer.builder("tollgate.store.latency")
                .description("time for one check call to the counter store")
                .publishPercentileHistogram()
                .register(registry);
        this.timeouts = errors(registry, "timeout");
        this.errors = errors(registry, "error");
        this.shortCircuits = errors(registry, "breaker_open");
        registry.gauge("tollgate.store.breaker.state", breaker, b -> b.state().ordinal());
    }

    Uni<List<Decision>> check(List<Bucket> buckets) {
        if (!breaker.allowsCall()) {
            shortCircuits.increment();
            return Uni.createFrom().failure(BREAKER_OPEN);
        }
        long start = System.nanoTime();
        return withinTimeout(store.check(buckets))
                .onItem()
                .invoke(decisions -> {
                    latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    breaker.succeeded();
                })
                .onFailure()
                .invoke(err -> {
                    (err instanceof StoreUnavailable ? timeouts : errors).increment();
                    breaker.failed();
                });
    }

    /**
     * Fails the check when the store is silent for {@code timeout}. On an event loop the timer is a
     * Vert.x timer on that same loop: far cheaper per request than Mutiny's {@code ifNoItem()}, which
     * schedules and cancels a task on a shared worker scheduler for every check.
     */
    private Uni<List<Decision>> withinTimeout(Uni<List<Decision>> call) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return call.ifNoItem().after(timeout).failWith(this::timedOut);
        }
        return Uni.createFrom().emitter(emitter -> {
            long timer = context.owner().setTimer(timeout.toMillis(), t -> emitter.fail(timedOut()));
            call.subscribe().with(decisions -> {
                context.owner().cancelTimer(timer);
                emitter.complete(decisions);
            }, err -> {
                context.owner().cancelTimer(timer);
                emitter.fail(err);
            });
        });
    }

    private StoreUnavailable timedOut() {
        return new StoreUnavailable("no answer within " + timeout.toMillis() + " ms");
    }

    private static Counter errors(MeterRegistry registry, String kind) {
        return Counter.builder("tollgate.store.errors")
                .description("checks the counter store did not answer, by kind")
                .tag("kind", kind)
                .register(registry);
    }
}
