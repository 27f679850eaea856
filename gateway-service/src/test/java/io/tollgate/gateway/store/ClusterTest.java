package io.tollgate.gateway.store;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RedisCli;

/** On a real Redis Cluster (3 primaries + 3 replicas): keys spread over the shards; a flushed script cache heals. */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {
        @ResourceArg(name = "redis", value = "cluster"),
        @ResourceArg(name = "store.timeout", value = "2s")})
class ClusterTest {

    private static final int CLIENTS = 60;

    @Test
    void manyClientsAcrossShardsThenScriptFlushOnEveryNode() {
        install("[" + rule("cluster.one", "/cl/**", "api_key", 5, "1m", 5, "") + "]");
        for (int i = 0; i < CLIENTS; i++) {
            given().header("X-API-Key", "client-" + i).get("/cl/x").then().statusCode(200)
                    .header("RateLimit-Remaining", "4");
        }
        List<Integer> ports = Arrays.stream(config("test.redis.nodes").split(",")).map(RedisCli::port).toList();
        long shardsWithKeys = ports.stream()
                .filter(p -> RedisCli.run(p, "ROLE").startsWith("master"))
                .filter(p -> Long.parseLong(RedisCli.run(p, "DBSIZE")) > 0)
                .count();
        assertThat(shardsWithKeys).as("primaries holding buckets").isGreaterThanOrEqualTo(2);

        ports.forEach(p -> RedisCli.run(p, "SCRIPT", "FLUSH"));
        long evalBefore = ports.stream().mapToLong(p -> RedisCli.calls(p, "eval")).sum();
        for (int i = 0; i < CLIENTS; i++) {
            given().header("X-API-Key", "client-" + i).get("/cl/x").then().statusCode(200)
                    .header("RateLimit-Remaining", "3");
        }
        long evals = ports.stream().mapToLong(p -> RedisCli.calls(p, "eval")).sum() - evalBefore;
        assertThat(evals).as("one EVAL per primary that had lost the script, not one per request")
                .isBetween(1L, (long) ports.size());
    }
}
