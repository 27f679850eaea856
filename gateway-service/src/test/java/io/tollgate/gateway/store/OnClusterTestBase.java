package io.tollgate.gateway.store;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.tollgate.counter.testing.RedisCluster;
import io.tollgate.gateway.support.RedisCli;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/** A private real Redis Cluster of three primaries, a Vert.x and its cluster client, per test class. */
abstract class OnClusterTestBase {

    static RedisCluster cluster;
    static Vertx vertx;
    static Redis redis;
    /** The primaries' ports. */
    static List<Integer> primaries;

    @BeforeAll
    static void start() {
        cluster = new RedisCluster(3, 0);
        vertx = Vertx.vertx();
        RedisOptions options = new RedisOptions().setType(RedisClientType.CLUSTER);
        cluster.addresses().forEach(options::addConnectionString);
        redis = Redis.createClient(vertx, options);
        primaries = cluster.primaries().stream().map(RedisCli::port).toList();
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        cluster.close();
    }
}
