package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * One Redis connection per event-loop thread, pipelined: a check borrows nothing from a pool and never
 * leaves its loop. (The pooled client acquires and releases a connection per command, which measured as
 * most of the limiter's CPU per request.) A connection that fails or closes is dropped and the next
 * check on that loop connects again; off an event loop the pooled client is used. For Redis Cluster the
 * connection is the client's cluster connection, which routes each command by its key's slot.
 * <p>
 * With {@code coalesce} (standalone Redis only), the commands a loop sends while it handles one batch of
 * ready sockets go out in ONE write, at the end of that batch ({@link RedisConnection#batch}): one system
 * call here and one read in Redis for many checks, each still its own {@code EVALSHA} with its own reply.
 * A batch fails as a whole when any of its commands fails (the client's rule), so every check of it fails.
 * Batches hold only {@code EVALSHA}s of the one check script, and the errors Redis gives them (NOSCRIPT,
 * LOADING, BUSY) refuse a command before it runs and hold for every command Redis reads in the same read
 * (16 KB; a batch is at most {@value #MAX_BATCH} checks of a few hundred bytes): none of those was spent. The {@code EVAL} that
 * answers NOSCRIPT has Redis run the
 * script, so it goes {@link #sendAlone alone}, never failed by a sibling. What remains: an OOM reached midway
 * through a batch, or a script cache flushed between two reads of one large batch, fails checks that did
 * spend; the failure policy answers them, as it does any store failure.
 * (The cluster client batches only commands of one slot, which checks of many clients are not.)
 */
final class PinnedConnections {

    private static final Logger LOG = Logger.getLogger(PinnedConnections.class);

    /** At most this many commands per write: a batch of checks fits the 16 KB Redis reads at once. */
    static final int MAX_BATCH = 32;

    private final Redis redis;
    private final boolean coalesce;
    private final ConcurrentHashMap<Thread, Loop> loops = new ConcurrentHashMap<>();

    PinnedConnections(Redis redis, boolean coalesce) {
        this.redis = redis;
        this.coalesce = coalesce;
    }

    /** Sends {@code request}: in the loop's next batch when coalescing, else at once. */
    Future<Response> send(Request request) {
        return send(request, coalesce);
    }

    /**
     * Sends {@code request} in a write of its own, never in a batch, so no other command's error can fail it:
     * for a command that must not be answered with a failure once Redis has run it (the {@code EVAL} after
     * {@code NOSCRIPT}, which would otherwise share a batch with fresh {@code EVALSHA}s meeting the same
     * empty script cache).
     */
    Future<Response> sendAlone(Request request) {
        return send(request, false);
    }

    private Future<Response> send(Request request, boolean batched) {
        Context context = Vertx.currentContext();
        if (context == null || !context.isEventLoopContext()) {
            return redis.send(request);
        }
        Thread thread = Thread.currentThread();
        Loop loop = loops.get(thread); // every check: a plain read; the loop's first check makes its entry
        if (loop == null) {
            loop = loops.computeIfAbsent(thread, Loop::new);
        }
        return batched ? loop.queue(request, context) : loop.send(request);
    }

    /** The connection and the commands waiting for the end of the batch of one event-loop thread. */
    private final class Loop {

        private final Thread thread;
        private Future<RedisConnection> connection;
        private List<Request> requests = new ArrayList<>();
        private List<Promise<Response>> replies = new ArrayList<>();

        Loop(Thread thread) {
            this.thread = thread;
        }

        Future<Response> queue(Request request, Context context) {
            Promise<Response> reply = Promise.promise();
            if (requests.isEmpty()) {
                // runs after the loop has handled every socket that was ready: the checks they asked for
                context.runOnContext(v -> flush());
            }
            requests.add(request);
            replies.add(reply);
            if (requests.size() == MAX_BATCH) {
                flush(); // the scheduled flush sends what comes after
            }
            return reply.future();
        }

        private void flush() {
            List<Request> sending = requests;
            List<Promise<Response>> waiting = replies;
            requests = new ArrayList<>();
            replies = new ArrayList<>();
            if (sending.isEmpty()) {
                return;
            }
            if (sending.size() == 1) {
                send(sending.get(0)).onComplete(waiting.get(0));
                return;
            }
            connection().compose(c -> c.batch(sending)).onComplete(batch -> {
                if (batch.succeeded()) {
                    List<Response> answers = batch.result();
                    for (int i = 0; i < waiting.size(); i++) {
                        waiting.get(i).complete(answers.get(i));
                    }
                } else {
                    waiting.forEach(p -> p.fail(batch.cause()));
                }
            });
        }

        Future<Response> send(Request request) {
            Future<RedisConnection> c = connection();
            return c.succeeded()
                    ? c.result().send(request) // the common case: no composition per check
                    : c.compose(open -> open.send(request));
        }

        private Future<RedisConnection> connection() {
            Future<RedisConnection> current = connection;
            if (current != null && !current.failed()) {
                return current;
            }
            Future<RedisConnection> connecting = redis.connect();
            connection = connecting;
            connecting.onSuccess(c -> {
                c.exceptionHandler(err -> drop(connecting, err));
                c.endHandler(v -> drop(connecting, null));
            }).onFailure(err -> drop(connecting, err));
            return connecting;
        }

        private void drop(Future<RedisConnection> dropped, Throwable why) {
            // handlers run on this loop's thread: the connection's own context
            if (connection == dropped) {
                connection = null;
                LOG.debugf("redis connection of %s dropped: %s", thread.getName(), why);
                dropped.onSuccess(RedisConnection::close);
            }
        }
    }
}
