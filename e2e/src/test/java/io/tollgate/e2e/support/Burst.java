package io.tollgate.e2e.support;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.IntFunction;

/**
 * Many requests at once from a fixed number of client threads, which start together: the answers by status
 * and the span from just before the first request was sent to just after the last answer came, the time in
 * which a token bucket may refill. The threads are started and waiting before {@link #fire()}, so a test can
 * send the moment something happens.
 */
public final class Burst implements AutoCloseable {

    /** What a burst got: answers by status (-1 for a request that got no answer) and its span. */
    public record Result(Map<Integer, Integer> statuses, long firstSentNanos, long lastAnsweredNanos) {

        public int count(int status) {
            return statuses.getOrDefault(status, 0);
        }

        public int allowed() {
            return count(200);
        }

        public Duration elapsed() {
            return Duration.ofNanos(lastAnsweredNanos - firstSentNanos);
        }

        /** The most a token bucket of {@code burst} refilling {@code perSecond} tokens a second can allow in this span. */
        public long ceiling(long burst, double perSecond) {
            return burst + (long) Math.floor(perSecond * (lastAnsweredNanos - firstSentNanos) / 1e9);
        }
    }

    private final Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
    private final LongAccumulator firstSent = new LongAccumulator(Math::min, Long.MAX_VALUE);
    private final LongAccumulator lastAnswered = new LongAccumulator(Math::max, Long.MIN_VALUE);
    private final CountDownLatch go = new CountDownLatch(1);
    private final List<Thread> clients = new ArrayList<>();

    private Burst(int count, int threads, IntFunction<HttpResponse<String>> call) {
        AtomicInteger next = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread client = new Thread(() -> {
                waiting.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    send(call, i);
                }
            }, "burst-client-" + t);
            client.setDaemon(true);
            clients.add(client);
            client.start();
        }
        try {
            if (!waiting.await(10, TimeUnit.SECONDS)) {
                close();
                throw new IllegalStateException("the burst's client threads did not start");
            }
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Starts {@code threads} client threads that wait for {@link #fire()} and then send {@code count} requests
     * between them; request {@code i} is {@code call.apply(i)}.
     */
    public static Burst prepare(int count, int threads, IntFunction<HttpResponse<String>> call) {
        return new Burst(count, threads, call);
    }

    /** {@link #prepare} and {@link #fire} at once. */
    public static Result send(int count, int threads, IntFunction<HttpResponse<String>> call) {
        try (Burst burst = prepare(count, threads, call)) {
            return burst.fire();
        }
    }

    private void send(IntFunction<HttpResponse<String>> call, int i) {
        firstSent.accumulate(System.nanoTime());
        int status;
        try {
            status = call.apply(i).statusCode();
        } catch (RuntimeException e) {
            status = -1;
        }
        lastAnswered.accumulate(System.nanoTime());
        statuses.merge(status, 1, Integer::sum);
    }

    /** Lets the client threads go and returns once every request has its answer (or failed). */
    public Result fire() {
        go.countDown();
        try {
            for (Thread client : clients) {
                client.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return new Result(new TreeMap<>(statuses), firstSent.get(), lastAnswered.get());
    }

    /** Stops client threads still waiting for {@link #fire()} (a test that failed before it fired). */
    @Override
    public void close() {
        if (go.getCount() > 0) {
            clients.forEach(Thread::interrupt);
        }
    }
}
