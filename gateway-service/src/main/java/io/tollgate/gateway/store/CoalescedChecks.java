package io.tollgate.gateway.store;

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
 * The checks one event loop asks for while it handles one batch of ready sockets, sent at the end of that
 * batch as ONE call of the check script ({@link CheckCall#together}): one write here, and in Redis one read
 * and one script run for many checks, whose dispatch, script lookup, {@code TIME} and reply are paid once
 * (callgrind: 36 % fewer instructions per check with 13 together, bench/README.md). Each client's check
 * is still all-or-nothing on its own, in the order asked. Standalone Redis only: the keys of different
 * clients are in different Cluster slots.
 * <p>
 * The call stands or falls as a whole: when it fails (a timeout, a dropped connection, an error from
 * Redis) every check in it fails, and the failure policy answers them as it answers any store failure.
 * {@code NOSCRIPT} is not a failure: the sender retries the whole call with the script's text.
 */
final class CoalescedChecks {

    /** At most this many checks per call: Redis runs a call's checks without serving anyone else. */
    static final int MAX_BATCH = 32;

    private final Function<CheckCall, Future<List<Long>>> send;
    private final PerEventLoop<Pending> loops = new PerEventLoop<>(thread -> new Pending());

    /** @param send runs one call of the check script and gives its reply's integers */
    CoalescedChecks(Function<CheckCall, Future<List<Long>>> send) {
        this.send = send;
    }

    /** Queues {@code call} for the end of the calling event loop's batch; off an event loop, sends it alone. */
    Future<List<Decision>> check(CheckCall call) {
        Context context = Vertx.currentContext();
        Pending pending = loops.of(context);
        return pending == null ? send.apply(call).map(call::parse) : pending.queue(call, context);
    }

    /** The checks waiting for the end of the batch of one event-loop thread; only that thread touches them. */
    private final class Pending {

        private List<CheckCall> calls = new ArrayList<>();
        private List<Promise<List<Decision>>> replies = new ArrayList<>();

        Future<List<Decision>> queue(CheckCall call, Context context) {
            Promise<List<Decision>> reply = Promise.promise();
            if (calls.isEmpty()) {
                // runs after the loop has handled every socket that was ready: the checks they asked for
                context.runOnContext(v -> flush());
            }
            calls.add(call);
            replies.add(reply);
            if (calls.size() == MAX_BATCH) {
                flush(); // the scheduled flush sends what comes after
            }
            return reply.future();
        }

        private void flush() {
            List<CheckCall> sending = calls;
            List<Promise<List<Decision>>> waiting = replies;
            if (sending.isEmpty()) {
                return;
            }
            calls = new ArrayList<>();
            replies = new ArrayList<>();
            Future<List<Long>> sent;
            try {
                sent = send.apply(CheckCall.together(sending));
            } catch (RuntimeException cannotSend) { // e.g. checks that differ in cost: fail them, never leave them waiting
                sent = Future.failedFuture(cannotSend);
            }
            sent.onComplete(reply -> {
                if (reply.failed()) {
                    waiting.forEach(p -> p.fail(reply.cause()));
                    return;
                }
                List<Long> integers = reply.result();
                int at = 0;
                for (int i = 0; i < sending.size(); i++) {
                    CheckCall call = sending.get(i);
                    int end = Math.min(at + 4 * call.keys().size(), integers.size());
                    try {
                        waiting.get(i).complete(call.parse(integers.subList(at, end)));
                    } catch (IllegalArgumentException wrongShape) {
                        waiting.get(i).fail(wrongShape);
                    }
                    at = end;
                }
            });
        }
    }
}
