package io.tollgate.e2e.support;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;

/**
 * Requests sent back to back from a fixed number of client threads until stopped, round robin over the gateways
 * it is {@link #route routed} to (changeable while it runs, as a balancer that takes a gateway out). Every answer
 * is kept with its gateway and the moments its request was sent and answered, so a test can count what was
 * allowed in any span and hold it against what a token bucket could give in that span.
 */
public final class Flood implements AutoCloseable {

    /** How one request is sent: to gateway {@code gateway}, the {@code i}-th of the flood. */
    @FunctionalInterface
    public interface Call {

        HttpResponse<String> send(int gateway, int i);
    }

    /** One request: its gateway, when it was sent and answered, and its status (-1: no answer). */
    public record Answer(int gateway, long sentNanos, long answeredNanos, int status) {

        public boolean allowed() {
            return status == 200;
        }
    }

    private final Call call;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicIntegerArray inFlight;
    private final AtomicInteger allowed = new AtomicInteger();
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final List<Thread> clients = new ArrayList<>();
    private volatile int[] route;
    private volatile boolean stopped;

    private Flood(int threads, int gateways, Call call) {
        this.call = call;
        this.inFlight = new AtomicIntegerArray(gateways);
        this.route = allOf(gateways);
        for (int t = 0; t < threads; t++) {
            Thread client = new Thread(this::sendUntilStopped, "flood-client-" + t);
            client.setDaemon(true);
            clients.add(client);
        }
        clients.forEach(Thread::start);
    }

    /** Starts {@code threads} client threads sending round robin over gateways {@code 0 .. gateways - 1}. */
    public static Flood start(int threads, int gateways, Call call) {
        return new Flood(threads, gateways, call);
    }

    private static int[] allOf(int gateways) {
        int[] all = new int[gateways];
        for (int g = 0; g < gateways; g++) {
            all[g] = g;
        }
        return all;
    }

    private void sendUntilStopped() {
        while (!stopped) {
            int i = next.getAndIncrement();
            int[] to = route;
            int gateway = to[Math.floorMod(i, to.length)];
            inFlight.incrementAndGet(gateway);
            long sent = System.nanoTime();
            int status;
            try {
                status = call.send(gateway, i).statusCode();
            } catch (RuntimeException e) {
                status = -1;
            }
            long answered = System.nanoTime();
            inFlight.decrementAndGet(gateway);
            if (status == 200) {
                allowed.incrementAndGet();
            }
            answers.add(new Answer(gateway, sent, answered, status));
        }
    }

    /** From the next request on, sends only to {@code gateways}. */
    public void route(int... gateways) {
        route = gateways.clone();
    }

    /** Requests sent to {@code gateway} that have no answer yet. */
    public int inFlight(int gateway) {
        return inFlight.get(gateway);
    }

    /** Requests allowed so far. */
    public int allowed() {
        return allowed.get();
    }

    /** The answers so far (the flood goes on). */
    public Result sofar() {
        return new Result(List.copyOf(answers));
    }

    /** Stops sending and returns once every request sent has its answer (bounded by the HTTP timeout). */
    public Result stop() {
        stopped = true;
        for (Thread client : clients) {
            try {
                client.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return new Result(List.copyOf(answers));
    }

    @Override
    public void close() {
        stopped = true;
    }

    /** What a flood got, and the same for the requests of any part of it ({@link #where}). */
    public record Result(List<Answer> answers) {

        /** The requests that satisfy {@code sentAt} (of their sending moment). */
        public Result where(LongPredicate sentAt) {
            return new Result(answers.stream().filter(a -> sentAt.test(a.sentNanos())).toList());
        }

        /** The requests sent to a gateway that satisfies {@code gateway}. */
        public Result to(IntPredicate gateway) {
            return new Result(answers.stream().filter(a -> gateway.test(a.gateway())).toList());
        }

        public int allowed() {
            return (int) answers.stream().filter(Answer::allowed).count();
        }

        public Map<Integer, Integer> statuses() {
            Map<Integer, Integer> out = new TreeMap<>();
            answers.forEach(a -> out.merge(a.status(), 1, Integer::sum));
            return out;
        }

        public long firstSentNanos() {
            return answers.stream().mapToLong(Answer::sentNanos).min().orElseThrow();
        }

        public long lastSentNanos() {
            return answers.stream().mapToLong(Answer::sentNanos).max().orElseThrow();
        }

        public long firstAnsweredNanos() {
            return answers.stream().mapToLong(Answer::answeredNanos).min().orElseThrow();
        }

        public long lastAnsweredNanos() {
            return answers.stream().mapToLong(Answer::answeredNanos).max().orElseThrow();
        }

        /**
         * The most a bucket of {@code burst} refilling {@code perSecond} can have given these requests: the burst
         * and the refill from the first request sent to the last answer received (no admission lies outside).
         */
        public long ceiling(long burst, double perSecond) {
            return ceiling(burst, perSecond, firstSentNanos());
        }

        /** As {@link #ceiling(long, double)}, for a bucket that holds at most {@code burst} at {@code fromNanos}. */
        public long ceiling(long burst, double perSecond, long fromNanos) {
            return burst + (long) Math.floor(perSecond * (lastAnsweredNanos() - fromNanos) / 1e9);
        }

        /**
         * What a bucket of {@code burst} refilling {@code perSecond} surely held for these requests: the burst and
         * the refill from the first answer received to the last request sent (every admission lies outside).
         */
        public long floor(long burst, double perSecond) {
            return burst + (long) Math.floor(perSecond * Math.max(0, lastSentNanos() - firstAnsweredNanos()) / 1e9);
        }

        /**
         * The most the allowed answers ran ahead of the bucket at any moment: the greatest of (allowed answers
         * received by t) − (burst + refill from {@code fromNanos} to t) over the moments t an allowed answer came;
         * 0 or less for a fleet that never admitted more than the bucket held.
         */
        public long mostAhead(long burst, double perSecond, long fromNanos) {
            List<Answer> allowedInOrder = answers.stream().filter(Answer::allowed)
                    .sorted(Comparator.comparingLong(Answer::answeredNanos)).toList();
            long most = Long.MIN_VALUE;
            for (int i = 0; i < allowedInOrder.size(); i++) {
                long t = allowedInOrder.get(i).answeredNanos();
                long held = burst + (long) Math.floor(perSecond * (t - fromNanos) / 1e9);
                most = Math.max(most, i + 1 - held);
            }
            return allowedInOrder.isEmpty() ? -burst : most;
        }
    }
}
