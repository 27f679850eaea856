package io.tollgate.gateway.limiter;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.config.PerEventLoop;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
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
    /** The latency histogram's range: a healthy check is well under a millisecond, a store timeout tens of them. */
    static final Duration MIN_LATENCY = Duration.ofNanos(50_000);
    static final Duration MAX_LATENCY = Duration.ofSeconds(5);

    private final RateLimiter store;
    private final Vertx vertx;
    private final Duration timeout;
    private final long timeoutMs;
    private final long timeoutNanos;
    private final PerEventLoop<InFlight> inFlight = new PerEventLoop<>(thread -> new InFlight());
    private final CircuitBreaker breaker;
    private final Timer latency;
    private final Counter timeouts;
    private final Counter errors;
    private final Counter shortCircuits;

    GuardedStore(RateLimiter store, Vertx vertx, Duration timeout, CircuitBreaker breaker, MeterRegistry registry) {
        this.store = store;
        this.vertx = vertx;
        this.timeout = timeout;
        this.timeoutMs = Math.max(1, timeout.toMillis());
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.breaker = breaker;
        // buckets from 50 µs: a check takes a fraction of a millisecond, where Micrometer's default for a
        // timer starts at 1 ms and would put every healthy check in its first bucket
        this.latency = Timer.builder("tollgate.store.latency")
                .description("time for one check call to the counter store")
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_LATENCY)
                .maximumExpectedValue(MAX_LATENCY)
                .register(registry);
        this.timeouts = errors(registry, "timeout");
        this.errors = errors(registry, "error");
        this.shortCircuits = errors(registry, "breaker_open");
        registry.gauge("tollgate.store.breaker.state", breaker, b -> b.state().ordinal());
    }

    Future<List<Decision>> check(List<Bucket> buckets) {
        if (!breaker.allowsCall()) {
            shortCircuits.increment();
            return Future.failedFuture(BREAKER_OPEN);
        }
        long start = System.nanoTime();
        Future<List<Decision>> call;
        try {
            call = store.check(buckets);
        } catch (RuntimeException e) {
            call = Future.failedFuture(e);
        }
        if (call.isComplete()) {
            // the in-process store answers at once: no timer to arm
            record(call, start);
            return call;
        }
        Promise<List<Decision>> answer = Promise.promise();
        Context context = Vertx.currentContext();
        InFlight loop = inFlight.of(context);
        if (loop != null) {
            loop.add(new Call(answer, start));
        } else {
            // off an event loop (a worker thread, a test): a timer of its own
            long timer = vertx.setTimer(timeoutMs, t -> timeOut(answer, start));
            call.onComplete(result -> vertx.cancelTimer(timer));
        }
        call.onComplete(result -> {
            if (result.succeeded() ? answer.tryComplete(result.result()) : answer.tryFail(result.cause())) {
                record(result, start);
            }
        });
        return answer.future();
    }

    private void timeOut(Promise<List<Decision>> answer, long start) {
        StoreUnavailable silent = timedOut();
        if (answer.tryFail(silent)) {
            record(Future.failedFuture(silent), start);
        }
    }

    /** A store call in flight, answered by the store or, once {@code timeout} has passed, failed. */
    private record Call(Promise<List<Decision>> answer, long start) {
    }

    /**
     * The calls one event loop has in flight, oldest first, and ONE timer for the oldest unanswered one,
     * instead of a timer armed and cancelled per call: all share one timeout, so the calls time out in the
     * order they started. Answered calls are dropped when the timer next fires. Only that loop touches it.
     */
    private final class InFlight {

        private final ArrayDeque<Call> calls = new ArrayDeque<>();
        private boolean armed;

        void add(Call call) {
            calls.add(call);
            if (!armed) {
                armed = true;
                arm(timeoutNanos);
            }
        }

        /** A timer set on the loop's thread fires on that loop. */
        private void arm(long inNanos) {
            vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(inNanos + 999_999)), t -> sweep());
        }

        private void sweep() {
            long now = System.nanoTime();
            Call oldest;
            while ((oldest = calls.peek()) != null) {
                if (!oldest.answer.future().isComplete()) {
                    if (now - oldest.start < timeoutNanos) {
                        break;
                    }
                    timeOut(oldest.answer, oldest.start);
                }
                calls.poll();
            }
            armed = oldest != null;
            if (armed) {
                arm(oldest.start + timeoutNanos - now);
            }
        }
    }

    /** Latency and a success for the breaker, or the kind of failure and a failure for the breaker. */
    private void record(AsyncResult<List<Decision>> result, long start) {
        if (result.succeeded()) {
            latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            breaker.succeeded();
        } else {
            (result.cause() instanceof StoreUnavailable ? timeouts : errors).increment();
            breaker.failed();
        }
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
