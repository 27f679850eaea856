package io.tollgate.gateway.limiter.guard;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.config.PerEventLoop;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.store.CounterStore;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * The store behind a time limit and a circuit breaker, with metrics: every call either answers within
 * {@code tollgate.store.timeout} or fails, and an open breaker fails at once without calling.
 * <p>
 * A slow store is not a dead one. A call that times out fails with {@link TimedOut}, which still carries the
 * store's answer to come, and does not count against the store: the breaker hears the answer when it comes
 * (a success, which closes it), or a failure once the call stays unanswered for
 * {@code tollgate.store.breaker.unanswered-after}, or the error the store answers with. And before a call
 * times out, its event loop gets one more pass over its sockets: when the loop itself fell behind (a
 * crowded machine, cold code), the timer and the answer both wait in its queue, and the timer must not win
 * just because it was queued first.
 */
public final class GuardedStore {

    /** Why a check did not reach or hear from the store. */
    public static class StoreUnavailable extends RuntimeException {

        private static final long serialVersionUID = 1L;

        StoreUnavailable(String reason) {
            super(reason, null, false, false);
        }
    }

    /** No answer within the timeout; {@link #late()} completes when the store's answer arrives after all. */
    public static final class TimedOut extends StoreUnavailable {

        private static final long serialVersionUID = 1L;
        private final transient Future<List<Decision>> late;

        TimedOut(String reason, Future<List<Decision>> late) {
            super(reason);
            this.late = late;
        }

        public Future<List<Decision>> late() {
            return late;
        }
    }

    private static final StoreUnavailable BREAKER_OPEN = new StoreUnavailable("circuit breaker open");
    /** The latency histogram's range: a healthy check is well under a millisecond, a store timeout tens of them. */
    static final Duration MIN_LATENCY = Duration.ofNanos(50_000);
    static final Duration MAX_LATENCY = Duration.ofSeconds(5);
    /** The wait for one more pass of the event loop over its sockets: a timer is due at the earliest next pass. */
    private static final long ONE_PASS_MS = 1;

    private final CounterStore store;
    private final Vertx vertx;
    private final String timedOut;
    private final long timeoutMs;
    private final long timeoutNanos;
    private final long unansweredMs;
    private final long unansweredNanos;
    private final PerEventLoop<InFlight> inFlight = new PerEventLoop<>(thread -> new InFlight());
    private final CircuitBreaker breaker;
    private final Timer latency;
    private final Counter timeouts;
    private final Counter errors;
    private final Counter unanswered;
    private final Counter shortCircuits;
    private final Counter lateAnswers;

    /**
     * @param timeout how long a check waits for an answer
     * @param unansweredAfter how long a call may stay unanswered before it counts as a failure for the breaker
     */
    public GuardedStore(CounterStore store, Vertx vertx, Duration timeout, Duration unansweredAfter, CircuitBreaker breaker,
            MeterRegistry registry) {
        this.store = store;
        this.vertx = vertx;
        this.timedOut = "no answer within " + timeout.toMillis() + " ms";
        this.timeoutMs = Math.max(1, timeout.toMillis());
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.unansweredMs = Math.max(timeoutMs, unansweredAfter.toMillis());
        this.unansweredNanos = TimeUnit.MILLISECONDS.toNanos(unansweredMs);
        this.breaker = breaker;
        // buckets from 50 µs: a check takes a fraction of a millisecond, where Micrometer's default for a
        // timer starts at 1 ms and would put every healthy check in its first bucket
        this.latency = Timer.builder("tollgate.store.latency")
                .description("time for one check call to the counter store, late answers included")
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_LATENCY)
                .maximumExpectedValue(MAX_LATENCY)
                .register(registry);
        this.timeouts = errors(registry, "timeout");
        this.errors = errors(registry, "error");
        this.unanswered = errors(registry, "unanswered");
        this.shortCircuits = errors(registry, "breaker_open");
        this.lateAnswers = Counter.builder("tollgate.store.late.answers")
                .description("store answers that arrived after their check had timed out (read, not waited for)")
                .register(registry);
        registry.gauge("tollgate.store.breaker.state", breaker, b -> b.state().ordinal());
    }

    public Future<List<Decision>> check(List<Bucket> buckets) {
        if (!breaker.allowsCall()) {
            shortCircuits.increment();
            return Future.failedFuture(BREAKER_OPEN);
        }
        long start = System.nanoTime();
        Future<List<Decision>> reply;
        try {
            reply = store.check(buckets);
        } catch (RuntimeException e) {
            reply = Future.failedFuture(e);
        }
        Call call = new Call(reply, start);
        if (reply.isComplete()) {
            // the in-process store answers at once: no timer to arm
            call.answered(reply);
            return reply;
        }
        InFlight loop = inFlight.of(Vertx.currentContext());
        if (loop != null) {
            loop.add(call);
        } else {
            // off an event loop (a worker thread, a test): timers of its own
            long timer = vertx.setTimer(timeoutMs, t -> call.timeOut());
            long silence = vertx.setTimer(unansweredMs, t -> call.unanswered());
            reply.onComplete(result -> {
                vertx.cancelTimer(timer);
                vertx.cancelTimer(silence);
            });
        }
        reply.onComplete(call::answered);
        return call.answer.future();
    }

    /**
     * Settles {@code buckets} (a request's answer ended); not timed and not counted for the breaker: nobody waits
     * for it, and a settlement lost to a dead store leaves the reservation standing. Refused while the breaker is
     * open.
     */
    public Future<List<Decision>> settle(List<Bucket> buckets, List<Long> deltas) {
        if (breaker.state() == CircuitBreaker.State.OPEN) {
            return Future.failedFuture(BREAKER_OPEN);
        }
        try {
            return store.settle(buckets, deltas);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /** Gives back a concurrency slot, whatever the breaker says: a slot not given back is held until it expires. */
    public Future<Void> releaseSlot(Bucket bucket) {
        try {
            return store.releaseSlot(bucket);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /** Renews a concurrency slot, whatever the breaker says: a slot not renewed ends when its time is up. */
    public Future<Void> renewSlot(Bucket bucket) {
        try {
            return store.renewSlot(bucket);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    /** A store call in flight: answered by the store or, once {@code timeout} has passed, failed. */
    private final class Call {

        final Future<List<Decision>> reply;
        final long start;
        final Promise<List<Decision>> answer = Promise.promise();
        /** Its loop has had one more pass over its sockets since the timeout passed (that loop only). */
        boolean passed;
        /** Counted as a failure for the breaker because it stayed unanswered. */
        volatile boolean silent;

        Call(Future<List<Decision>> reply, long start) {
            this.reply = reply;
            this.start = start;
        }

        /** The store answered or failed, in time or late. */
        void answered(AsyncResult<List<Decision>> result) {
            if (result.succeeded()) {
                latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                breaker.succeeded();
                if (!answer.tryComplete(result.result())) {
                    lateAnswers.increment();
                }
            } else {
                errors.increment();
                if (!silent) {
                    breaker.failed();
                }
                answer.tryFail(result.cause());
            }
        }

        void timeOut() {
            if (answer.tryFail(new TimedOut(timedOut, reply))) {
                timeouts.increment();
            }
        }

        void unanswered() {
            if (!reply.isComplete() && !silent) {
                silent = true;
                unanswered.increment();
                breaker.failed();
            }
        }
    }

    /**
     * The calls one event loop has in flight, oldest first, and ONE timer for the next deadline, instead of
     * timers armed and cancelled per call: all share one timeout, so the calls time out in the order they
     * started. Answered calls are dropped when the timer next fires. Only that loop touches it.
     */
    private final class InFlight {

        /** Not timed out yet. */
        private final ArrayDeque<Call> calls = new ArrayDeque<>();
        /** Timed out and still unanswered: they count against the store once {@code unanswered-after} passes. */
        private final ArrayDeque<Call> late = new ArrayDeque<>();
        /** The timer set for the next deadline, or -1. */
        private long timer = -1;
        private long timerDueNanos;

        void add(Call call) {
            calls.add(call);
            armFor(call.start + timeoutNanos, call.start);
        }

        /**
         * Makes sure a sweep comes at {@code dueNanos} (measured at {@code now}), sooner when a timer is already
         * set for sooner; a timer set on the loop's thread fires on that loop, after at least one more pass
         * over its sockets.
         */
        private void armFor(long dueNanos, long now) {
            if (timer != -1) {
                if (timerDueNanos - dueNanos <= 0) {
                    return;
                }
                vertx.cancelTimer(timer);
            }
            timerDueNanos = dueNanos;
            long ms = Math.max(ONE_PASS_MS, TimeUnit.NANOSECONDS.toMillis(dueNanos - now + 999_999));
            timer = vertx.setTimer(ms, t -> sweep());
        }

        private void sweep() {
            timer = -1;
            long now = System.nanoTime();
            boolean onePassMore = false;
            for (Iterator<Call> it = calls.iterator(); it.hasNext();) {
                Call call = it.next();
                if (call.reply.isComplete()) {
                    it.remove();
                } else if (now - call.start < timeoutNanos) {
                    break;
                } else if (!call.passed) {
                    // its answer may be waiting in this loop's queue behind this timer: read sockets first
                    call.passed = true;
                    onePassMore = true;
                } else {
                    call.timeOut();
                    it.remove();
                    late.add(call);
                }
            }
            Call oldest;
            while ((oldest = late.peek()) != null
                    && (oldest.reply.isComplete() || now - oldest.start >= unansweredNanos)) {
                oldest.unanswered();
                late.poll();
            }
            if (onePassMore) {
                armFor(now, now);
            } else if (!calls.isEmpty()) {
                armFor(calls.peek().start + timeoutNanos, now);
            }
            if (oldest != null) {
                armFor(oldest.start + unansweredNanos, now);
            }
        }
    }

    private static Counter errors(MeterRegistry registry, String kind) {
        return Counter.builder("tollgate.store.errors")
                .description("checks the counter store did not answer in time, by kind")
                .tag("kind", kind)
                .register(registry);
    }
}
