package io.tollgate.gateway.store;

import java.util.concurrent.ConcurrentHashMap;

import org.jboss.logging.Logger;

import io.vertx.core.Context;
import io.vertx.core.Future;
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
    private final ConcurrentHashMap<Thread, Future<RedisConnection>> byLoop = new ConcurrentHashMap<>();

    PinnedConnections(Redis redis) {
        this.redis = redis;
    }

    Future<Response> send(Request request) {
        Context context = Vertx.currentContext();
        if (context == null || !context.isEventLoopContext()) {
            return redis.send(request);
        }
        Thread loop = Thread.currentThread();
        Future<RedisConnection> connection = byLoop.get(loop);
        if (connection == null) {
            connection = connect(loop);
        }
        if (connection.succeeded()) {
            return connection.result().send(request); // the common case: no composition per check
        }
        return connection.compose(c -> c.send(request));
    }

    private Future<RedisConnection> connect(Thread loop) {
        Future<RedisConnection> connecting = redis.connect();
        byLoop.put(loop, connecting);
        connecting.onSuccess(c -> {
            c.exceptionHandler(err -> drop(loop, connecting, err));
            c.endHandler(v -> drop(loop, connecting, null));
        }).onFailure(err -> drop(loop, connecting, err));
        return connecting;
    }

    private void drop(Thread loop, Future<RedisConnection> connection, Throwable why) {
        if (byLoop.remove(loop, connection)) {
            LOG.debugf("redis connection of %s dropped: %s", loop.getName(), why);
            connection.onSuccess(RedisConnection::close);
        }
    }
}
