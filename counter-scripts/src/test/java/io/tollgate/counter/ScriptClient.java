package io.tollgate.counter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Response;

/**
 * Runs the {@code check} and {@code peek} scripts through the Vert.x Redis client, standalone or cluster, as the
 * gateway will: EVALSHA, and on NOSCRIPT the full text once (EVAL caches it on that node).
 */
final class ScriptClient implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Vertx vertx = Vertx.vertx();
    private final Redis redis;
    private final RedisAPI api;

    private ScriptClient(RedisOptions options) {
        this.redis = Redis.createClient(vertx, options.setMaxPoolSize(16).setMaxPoolWaiting(2048).setMaxWaitingHandlers(
                4096));
        this.api = RedisAPI.api(redis);
    }

    static ScriptClient standalone(String address) {
        return new ScriptClient(new RedisOptions().setType(RedisClientType.STANDALONE).setConnectionString(address));
    }

    static ScriptClient cluster(List<String> addresses) {
        RedisOptions options = new RedisOptions().setType(RedisClientType.CLUSTER);
        addresses.forEach(options::addConnectionString);
        return new ScriptClient(options);
    }

    /** One check: the decisions per key, or the Redis error as an exception. */
    List<Decision> check(List<String> keys, List<Policy> policies, long cost, long nowMicros) {
        return check(CheckCall.of(keys, policies, cost, OptionalLong.of(nowMicros)));
    }

    /** Each key at its policy's own cost. */
    List<Decision> check(List<String> keys, List<Policy> policies, long nowMicros) {
        return check(CheckCall.of(keys, policies, OptionalLong.of(nowMicros)));
    }

    /** One settlement: each key by its delta. */
    List<Decision> settle(List<String> keys, List<Policy> policies, List<Long> deltas, long nowMicros) {
        return check(CheckCall.settle(keys, policies, deltas, OptionalLong.of(nowMicros)));
    }

    /** Gives a concurrency key's slot back as the gateway does, by {@code ZREM}: whether the key held it. */
    boolean release(String key, long slotId) {
        return send("ZREM", key, Long.toString(slotId)).toLong() == 1;
    }

    List<Decision> check(CheckCall call) {
        return call.parse(await(checkAsync(call)));
    }

    /** The reply as integers, without blocking. */
    CompletableFuture<List<Long>> checkAsync(CheckCall call) {
        return run(CounterScripts.check(), call.evalArgs());
    }

    /**
     * {@code call} as one call of {@code check_on_node}, its first client's keys declared: its keys must all
     * live on one Cluster node.
     */
    List<Decision> checkOnOneNode(CheckCall call) {
        return call.parse(await(run(CounterScripts.checkOnNode(), call.evalArgsOnOneNode(1))));
    }

    /** One peek: what each bucket holds, or the Redis error as an exception. */
    List<Peek> peek(List<String> keys, List<Policy> policies, long nowMicros) {
        return peek(PeekCall.of(keys, policies, OptionalLong.of(nowMicros)));
    }

    List<Peek> peek(PeekCall call) {
        return call.parse(await(run(CounterScripts.peek(), call.evalArgs())));
    }

    private CompletableFuture<List<Long>> run(CounterScripts.Script script, List<String> evalArgs) {
        List<String> args = new ArrayList<>(evalArgs);
        args.add(0, script.sha1());
        Future<Response> reply = api.evalsha(args).recover(error -> {
            if (!String.valueOf(error.getMessage()).startsWith("NOSCRIPT")) {
                return Future.failedFuture(error);
            }
            args.set(0, script.text());
            return api.eval(args);
        });
        return reply.map(ScriptClient::integers).toCompletionStage().toCompletableFuture();
    }

    /** Any other command, e.g. GET, PTTL, SET, SCRIPT LOAD. */
    Response send(String command, String... args) {
        List<String> all = new ArrayList<>(List.of(command.split(" ")));
        all.addAll(List.of(args));
        io.vertx.redis.client.Request request = io.vertx.redis.client.Request
                .cmd(io.vertx.redis.client.Command.create(all.get(0)));
        all.subList(1, all.size()).forEach(request::arg);
        return await(redis.send(request).toCompletionStage().toCompletableFuture());
    }

    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no reply within " + TIMEOUT, e);
        }
    }

    private static List<Long> integers(Response response) {
        List<Long> values = new ArrayList<>(response.size());
        for (Response item : response) {
            values.add(item.toLong());
        }
        return values;
    }

    @Override
    public void close() {
        redis.close();
        await(vertx.close().toCompletionStage().toCompletableFuture());
    }
}
