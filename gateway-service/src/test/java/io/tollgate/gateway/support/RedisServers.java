package io.tollgate.gateway.support;

import java.util.Map;

import io.tollgate.counter.testing.RedisCluster;
import io.tollgate.counter.testing.RedisNode;

/** The counter store a test gateway uses: a private Redis node, or a private Redis Cluster. */
final class RedisServers {

    /** What was started, and the {@code quarkus.redis.*} config that points at it. */
    record Started(AutoCloseable handle, Map<String, String> config) {
    }

    private RedisServers() {
    }

    static Started start(String kind) {
        if (kind.equals("cluster")) {
            RedisCluster cluster = new RedisCluster();
            return new Started(cluster, Map.of(
                    "quarkus.redis.hosts", String.join(",", cluster.addresses()),
                    "quarkus.redis.client-type", "cluster",
                    "test.redis.nodes", String.join(",", cluster.addresses())));
        }
        RedisNode node = new RedisNode();
        return new Started(node, Map.of(
                "quarkus.redis.hosts", node.address(),
                "test.redis.nodes", node.address(),
                "test.redis.port", Integer.toString(node.port())));
    }
}
