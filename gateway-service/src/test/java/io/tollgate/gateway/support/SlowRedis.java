package io.tollgate.gateway.support;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

/**
 * A TCP proxy in front of a real Redis that passes every reply on {@code delayMs} late, in order: a store
 * that is alive and answers every call, slowly. Requests go through at once.
 */
final class SlowRedis implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final NetServer server;
    private final long delayNanos;

    SlowRedis(int redisPort, long delayMs) {
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs);
        NetClient client = vertx.createNetClient();
        this.server = vertx.createNetServer().connectHandler(front -> {
            front.pause();
            client.connect(redisPort, "127.0.0.1").onSuccess(back -> {
                Delayed replies = new Delayed(front);
                back.handler(replies::add);
                back.closeHandler(v -> front.close());
                front.handler(back::write);
                front.closeHandler(v -> back.close());
                front.resume();
            }).onFailure(err -> front.close());
        });
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().join();
    }

    int port() {
        return server.actualPort();
    }

    /** The replies of one connection, each written {@code delayNanos} after it came, in the order they came. */
    private final class Delayed {

        private record Reply(Buffer data, long dueNanos) {
        }

        private final NetSocket to;
        private final ArrayDeque<Reply> queue = new ArrayDeque<>();

        Delayed(NetSocket to) {
            this.to = to;
        }

        void add(Buffer data) {
            queue.add(new Reply(data, System.nanoTime() + delayNanos));
            if (queue.size() == 1) {
                drainAt(queue.peek().dueNanos());
            }
        }

        private void drainAt(long dueNanos) {
            long ms = Math.max(1, TimeUnit.NANOSECONDS.toMillis(dueNanos - System.nanoTime() + 999_999));
            vertx.setTimer(ms, t -> drain());
        }

        private void drain() {
            long now = System.nanoTime();
            Reply head;
            while ((head = queue.peek()) != null && head.dueNanos() - now <= 0) {
                to.write(queue.poll().data());
            }
            if (head != null) {
                drainAt(head.dueNanos());
            }
        }
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
