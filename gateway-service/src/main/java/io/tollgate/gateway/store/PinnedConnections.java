package io.tollgate.gateway.store;

import org.jboss.logging.Logger;

import io.tollgate.gateway.config.PerEventLoop;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * One Redis connection per event-loop thread, pipelined: a check borrows nothing from a pool and never
 * leaves its loop (the pooled client acquires and releases a connection per command, at a cost in CPU to
 * every check). A connection that fails or closes is dropped and the next
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

    /** The connection of one event-loop thread. */
    private final class Loop {

        private final Thread thread;
        private Future<RedisConnection> connection;

        Loop(Thread thread) {
            this.thread = thread;
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
