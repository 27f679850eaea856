package io.tollgate.gateway.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.tollgate.counter.CheckCall;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.config.PerEventLoop;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * The checks one event loop asks for while it handles one batch of ready sockets, sent together at the end
 * of that batch, by one of two senders. On standalone Redis ({@link #together}), as ONE call of the check
 * script ({@link CheckCall#together}): one write here, and in Redis one read and one script run for many
 * checks, whose dispatch, script lookup, {@code TIME} and reply are paid once
 * ({@code bench/scripts/counter-scripts-instructions.sh} counts Redis's instructions per check). On a Cluster, as one call per
 * node that serves
 * some of them ({@code check_on_node}: a script's declared keys must share a slot, and different clients'
 * keys do not, so only the keys of the first check's slot are declared). Either way each client's check is
 * all-or-nothing on its own, in the order asked, and each script call's reply is shared out by
 * {@link #answer}.
 * <p>
 * A settlement nobody waits for ({@link #ride}: what an answer used, a concurrency slot given back) rides with the
 * loop's next checks instead of going in a call of its own. An answer ends in a loop turn of its own more often than not, so
 * without the ride most settlements would cost a call (a write here, a read and a script run in Redis) at a moderate
 * load (bench/cost, at a fixed rate). When no check comes, the loop's tick sends it: the tick is one timer per loop.
 * While checks come, they carry the settlements, and the tick stretches, twice as far apart each time, up to
 * {@link #MAX_RIDE_FACTOR} rides (a busy loop almost always has a settlement waiting for its next check, so a tick bound to
 * the oldest one's ride would come every few milliseconds). On a loop that had no check since the last tick (idle), it
 * comes when the oldest waiting settlement has waited {@link #RIDE_NANOS}. It stops after a tick that finds no
 * settlement came since the one before. So a settlement waits about {@link #RIDE_NANOS} on an idle loop, and at most
 * about {@link #MAX_RIDE_FACTOR} times that when a busy loop's checks stop. A timer costs far more than its few µs of
 * code: each new deadline reprograms the loop's timer in the kernel, which a virtual machine pays dearly for
 * (bench/README, cost: a tick every few milliseconds cost more than the rest of a settlement).
 * <p>
 * A call stands or falls as a whole: when it fails (a timeout, a dropped connection, an
 * error from Redis) every check in it fails, and the failure policy answers them as it answers any store
 * failure. {@code NOSCRIPT} is not a failure: the sender sends again with the script's text.
 */
final class CoalescedChecks {

    /** At most this many checks per call: Redis runs a call's checks without serving anyone else. */
    static final int MAX_BATCH = 32;

    /**
     * How long a settlement waits for checks to ride with on an idle loop before it goes on its own: under load the
     * loop sends checks every fraction of a millisecond, so the wait ends sooner.
     */
    static final long RIDE_NANOS = 5_000_000;

    /** The tick stretches while the loop's checks carry every settlement, up to this many rides apart. */
    static final int MAX_RIDE_FACTOR = 10;

    /**
     * Sends the checks of one loop turn, {@code calls}, and settles {@code replies.get(i)} with the decisions
     * of {@code calls.get(i)}, each script call's through {@link #answer}.
     */
    interface Sender {

        void send(List<CheckCall> calls, List<Promise<List<Decision>>> replies);
    }

    private final Sender sender;
    private final PerEventLoop<Pending> loops = new PerEventLoop<>(thread -> new Pending());
    private final Function<CheckCall, Future<List<Long>>> alone;
    private final long rideNanos;

    /**
     * @param sender sends one turn's checks
     * @param alone sends one call by itself (off an event loop)
     */
    CoalescedChecks(Sender sender, Function<CheckCall, Future<List<Long>>> alone) {
        this(sender, alone, RIDE_NANOS);
    }

    /** As above, a settlement waiting {@code rideNanos} on an idle loop for checks to ride with. */
    CoalescedChecks(Sender sender, Function<CheckCall, Future<List<Long>>> alone, long rideNanos) {
        this.sender = sender;
        this.alone = alone;
        this.rideNanos = rideNanos;
    }

    /** The standalone sender: one call of the script for all. */
    static Sender together(Function<CheckCall, Future<List<Long>>> send) {
        return (calls, replies) -> answer(send.apply(CheckCall.together(calls)), calls, replies);
    }

    /**
     * Settles {@code replies} from {@code reply}, the integers of {@link CheckCall#together}{@code (calls)}:
     * each call parses its own slice, in order; a failed reply fails them all.
     */
    static void answer(Future<List<Long>> reply, List<CheckCall> calls, List<Promise<List<Decision>>> replies) {
        reply.onComplete(integers -> {
            if (integers.failed()) {
                replies.forEach(p -> p.tryFail(integers.cause()));
                return;
            }
            List<Long> all = integers.result();
            int at = 0;
            for (int i = 0; i < calls.size(); i++) {
                CheckCall call = calls.get(i);
                int end = Math.min(at + 4 * call.keys().size(), all.size());
                try {
                    replies.get(i).tryComplete(call.parse(all.subList(at, end)));
                } catch (IllegalArgumentException wrongShape) {
                    replies.get(i).tryFail(wrongShape);
                }
                at = end;
            }
        });
    }

    /** Queues {@code call} for the end of the calling event loop's batch; off an event loop, sends it alone. */
    Future<List<Decision>> check(CheckCall call) {
        return queue(call, false);
    }

    /**
     * Queues {@code call}, a settlement nobody waits for, to ride with the calling event loop's next checks (when
     * none come, its tick sends it); off an event loop, sends it alone.
     */
    Future<List<Decision>> ride(CheckCall call) {
        return queue(call, true);
    }

    /** Whether the calling event loop's tick runs (tests: it stops once no check came for a tick). */
    boolean ticking() {
        Pending pending = loops.of(Vertx.currentContext());
        return pending != null && pending.tick != -1;
    }

    private Future<List<Decision>> queue(CheckCall call, boolean riding) {
        Context context = Vertx.currentContext();
        Pending pending = loops.of(context);
        if (pending == null) {
            return alone.apply(call).map(call::parse);
        }
        return riding ? pending.ride(call, context) : pending.queue(call, context);
    }

    /** A settlement waiting for checks to ride with, since {@code at} (nanoTime). */
    private record WaitingCheck(CheckCall call, Promise<List<Decision>> reply, long at) {
    }

    /**
     * The checks waiting for the end of the batch of one event-loop thread, and the settlements waiting to ride
     * with them; only that thread touches them.
     */
    private final class Pending {

        private List<CheckCall> calls = new ArrayList<>();
        private List<Promise<List<Decision>>> replies = new ArrayList<>();
        /** Oldest first. */
        private final ArrayDeque<WaitingCheck> waiting = new ArrayDeque<>();
        /** The loop's tick (a timer), or -1 when no check came for a whole tick. */
        private long tick = -1;
        /** Nanoseconds from one tick to the next. */
        private long apart;
        /** A check came since the last tick. */
        private boolean rode;
        /** A check came since the last tick: the loop is busy. */
        private boolean checked;

        Future<List<Decision>> queue(CheckCall call, Context context) {
            Promise<List<Decision>> reply = Promise.promise();
            if (calls.isEmpty()) {
                // runs after the loop has handled every socket that was ready: the checks they asked for
                context.runOnContext(v -> flush());
            }
            calls.add(call);
            replies.add(reply);
            checked = true;
            if (calls.size() == MAX_BATCH) {
                flush(); // the scheduled flush sends what comes after
            }
            return reply.future();
        }

        Future<List<Decision>> ride(CheckCall call, Context context) {
            Promise<List<Decision>> reply = Promise.promise();
            waiting.addLast(new WaitingCheck(call, reply, System.nanoTime()));
            rode = true;
            if (tick == -1) {
                // a loop whose tick had stopped is idle: one ride
                apart = rideNanos;
                arm(context, apart);
            }
            return reply.future();
        }

        /** Sets the tick {@code nanos} from now (a timer set on the loop's thread runs on that loop). */
        private void arm(Context context, long nanos) {
            tick = context.owner().setTimer(Math.max(1, (nanos + 999_999) / 1_000_000), id -> tick(context));
        }

        /**
         * Sends every check when the oldest waited a ride or more (a call goes: the young ones take it too). On a
         * loop that had checks since the last tick (busy: they carry its waiting), the next tick comes twice as far
         * (up to {@link #MAX_RIDE_FACTOR} rides); on an idle one, when its oldest check has waited a ride. Stops
         * when no check came since the last tick.
         */
        private void tick(Context context) {
            tick = -1;
            long now = System.nanoTime();
            if (!waiting.isEmpty() && now - waiting.peekFirst().at() >= rideNanos) {
                while (!waiting.isEmpty()) {
                    board(); // as many as fit a call, the oldest first
                    flush();
                }
            }
            boolean busy = checked;
            checked = false;
            apart = busy ? Math.min(2 * apart, MAX_RIDE_FACTOR * rideNanos) : rideNanos;
            if (!waiting.isEmpty()) {
                arm(context, busy ? apart : waiting.peekFirst().at() + rideNanos - now);
            } else if (rode) {
                arm(context, apart);
            }
            rode = false;
        }

        /** Moves waiting ahead of the pending checks (they were asked first), oldest first, as many as fit. */
        private void board() {
            int boarding = Math.min(MAX_BATCH - calls.size(), waiting.size());
            for (int i = 0; i < boarding; i++) {
                WaitingCheck check = waiting.pollFirst();
                calls.add(i, check.call());
                replies.add(i, check.reply());
            }
        }

        private void flush() {
            if (!waiting.isEmpty() && !calls.isEmpty()) {
                board();
            }
            List<CheckCall> sending = calls;
            List<Promise<List<Decision>>> waiting = replies;
            if (sending.isEmpty()) {
                return;
            }
            calls = new ArrayList<>();
            replies = new ArrayList<>();
            try {
                sender.send(sending, waiting);
            } catch (RuntimeException cannotSend) {
                // e.g. checks that differ in cost: fail them, never leave them waiting
                waiting.forEach(p -> p.tryFail(cannotSend));
            }
        }
    }
}
