package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;

import io.tollgate.gateway.config.PerEventLoop;
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
 */
final class PinnedConnections {

    private static final Logger LOG = Logger.getLogger(PinnedConnections.class);

    private final Redis redis;
    private final PerEventLoop<Loop> loops = new PerEventLoop<>(Loop::new);

    PinnedConnections(Redis redis) {
        this.redis = redis;
    }

    /** Sends {@code request} on this event loop's connection, or through the pooled client off a loop. */
    Future<Response> send(Request request) {
        Loop loop = loops.of(Vertx.currentContext());
        return loop == null ? redis.send(request) : loop.send(request);
    }

    /**
     * Sends {@code requests} on this event loop's Cluster connection as one pipelined write per node that
     * serves some of them ({@code batch} per node, grouped by {@code owners}: the client routes a batch by
     * node, and refuses one whose keys are on different nodes), instead of one write per request. One future
     * per request, in order; {@code keys.get(i)} is a key of {@code requests.get(i)}. A node's batch stands
     * or falls as a whole: when one of its replies is an error, every request sent to that node fails with
     * it. A batch the client refuses (the map was stale) was not sent: its requests go one by one, and the
     * map is asked for again. One request (a quiet loop's turn) is simply sent. Call on an event loop, as
     * {@link CoalescedChecks} does when it flushes a turn.
     */
    List<Future<Response>> sendByNode(List<Request> requests, List<String> keys, SlotOwners owners) {
        Loop loop = loops.of(Vertx.currentContext());
        if (loop == null) {
            throw new IllegalStateException("sendByNode off an event loop");
        }
        if (requests.size() == 1) {
            return List.of(loop.send(requests.get(0)));
        }
        Map<String, List<Integer>> byNode = new HashMap<>();
        List<Future<Response>> out = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            out.add(null);
            String owner = owners.ownerOf(keys.get(i));
            byNode.computeIfAbsent(owner == null ? "?" + i : owner, n -> new ArrayList<>(4)).add(i);
        }
        for (List<Integer> group : byNode.values()) {
            if (group.size() == 1) {
                out.set(group.get(0), loop.send(requests.get(group.get(0))));
                continue;
            }
            List<Request> batch = new ArrayList<>(group.size());
            List<Promise<Response>> answers = new ArrayList<>(group.size());
            for (int i : group) {
                Promise<Response> answer = Promise.promise();
                batch.add(requests.get(i));
                answers.add(answer);
                out.set(i, answer.future());
            }
            loop.batch(batch).onComplete(replies -> {
                if (replies.succeeded()) {
                    for (int j = 0; j < answers.size(); j++) {
                        answers.get(j).complete(replies.result().get(j));
                    }
                } else if (isRefusedAcrossNodes(replies.cause())) {
                    owners.refresh(); // nothing was sent
                    for (int j = 0; j < answers.size(); j++) {
                        loop.send(batch.get(j)).onComplete(answers.get(j));
                    }
                } else {
                    answers.forEach(a -> a.fail(replies.cause()));
                }
            });
        }
        return out;
    }

    /** The cluster client's refusal of a batch whose keys are on different nodes, made before sending. */
    private static boolean isRefusedAcrossNodes(Throwable err) {
        return err.getMessage() != null && err.getMessage().contains("client side resharding is not supported");
    }

    /** The connection of one event-loop thread. */
    private final class Loop {

        private final Thread thread;
        private Future<RedisConnection> connection;

        Loop(Thread thread) {
            this.thread = thread;
        }

        Future<List<Response>> batch(List<Request> requests) {
            Future<RedisConnection> c = connection();
            return c.succeeded() ? c.result().batch(requests) : c.compose(open -> open.batch(requests));
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
