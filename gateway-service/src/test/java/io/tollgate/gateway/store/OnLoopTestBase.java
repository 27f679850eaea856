package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.tollgate.counter.Decision;
import io.tollgate.counter.testing.RedisNode;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;

/** A private real Redis, a Vert.x and its Redis client, and a way to run code on one of its event loops. */
abstract class OnLoopTestBase {

    static RedisNode node;
    static Vertx vertx;
    static Redis redis;

    @BeforeAll
    static void start() {
        node = new RedisNode();
        vertx = Vertx.vertx();
        // every store a test builds pins a connection of this pool per event loop it runs on, until the class ends
        redis = Redis.createClient(vertx, new RedisOptions().setConnectionString(node.address()).setMaxPoolSize(64));
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        node.close();
    }

    /** The decisions of {@code checks}, in order, once all are in. */
    static Future<List<List<Decision>>> all(List<Future<List<Decision>>> checks) {
        return Future.all(new ArrayList<>(checks)).map(all -> all.<List<Decision>>list());
    }

    /** Runs {@code action} on the event loop of {@code context} and waits for what it returns. */
    static <T> T onLoop(Context context, Supplier<Future<T>> action) throws Exception {
        CompletableFuture<T> result = startOnLoop(context, action);
        try {
            return result.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** Runs {@code action} on the event loop of {@code context}; what it returns, when it is in. */
    static <T> CompletableFuture<T> startOnLoop(Context context, Supplier<Future<T>> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        context.runOnContext(v -> action.get().onComplete(r -> {
            if (r.succeeded()) {
                result.complete(r.result());
            } else {
                result.completeExceptionally(r.cause());
            }
        }));
        return result;
    }
}
