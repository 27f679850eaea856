package io.tollgate.gateway.clients;

import static io.restassured.RestAssured.given;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;

import io.restassured.response.Response;
import io.tollgate.gateway.support.DirectoryControl;
import io.tollgate.gateway.support.RedisCli;
import io.tollgate.rules.domain.ClientDigest;

/**
 * Two clients of one tenant under a rule keyed {@code api_key} (3 an hour each) and one keyed {@code tenant}
 * (4 an hour for the tenant), and a stranger whose API key is spelled as the tenant's id, run by {@link TenantsTest} on a
 * standalone Redis and by {@link TenantsOnClusterTest}
 * on a Cluster.
 */
final class TenantBudget {

    private final String tenant;
    private final String a;
    private final String b;

    private TenantBudget() {
        String id = UUID.randomUUID().toString().substring(0, 8);
        tenant = "acme-" + id;
        a = "a-" + id;
        b = "b-" + id;
    }

    /** The whole scenario, against the gateway under test. */
    static void run() {
        new TenantBudget().shareTheTenantsBudgetAndARejectedRequestSpendsNothing();
    }

    private void shareTheTenantsBudgetAndARejectedRequestSpendsNothing() {
        install("[" + rule("t.key", "/tenants/**", "api_key", 3, "1h", 3, "") + ","
                + rule("t.tenant", "/tenants/**", "tenant", 4, "1h", 4, "") + "]");
        DirectoryControl.apply("{\"tenants\":[{\"id\":\"" + tenant + "\",\"entry\":{\"label\":\"Acme\"}}],"
                + "\"clients\":[" + client(a) + "," + client(b) + "]}");

        // a caller the directory does not know, whose key is spelled as the tenant's id, is a tenant of its own:
        // its three requests spend its own buckets, none of the tenant's
        for (int i = 0; i < 3; i++) {
            get(tenant).then().statusCode(200);
        }
        get(tenant).then().statusCode(429).body("violated-policies", contains("t.key"));

        long callsBefore = storeCalls();
        get(a).then().statusCode(200).header("RateLimit-Policy", "\"t.key\";q=3;w=3600")
                .header("RateLimit-Remaining", "2");
        assertThat(storeCalls() - callsBefore).as("the client's and its tenant's bucket in ONE script call")
                .isEqualTo(1);
        get(a).then().statusCode(200).header("RateLimit-Remaining", "1");
        get(b).then().statusCode(200).header("RateLimit-Remaining", "1");
        get(b).then().statusCode(200).header("RateLimit-Remaining", "0").header("RateLimit-Policy",
                "\"t.tenant\";q=4;w=3600");
        // the tenant's 4 are spent by its two clients together; b's own bucket still holds 1
        get(b).then().statusCode(429).body("violated-policies", contains("t.tenant"));
        get(a).then().statusCode(429).body("violated-policies", contains("t.tenant"));
        // the tenant's clients by their API keys' digests under the tenant's readable hash tag, on one shard
        assertThat(bucketKeys()).containsExactlyInAnyOrder("rl:t.key:{" + tenant + "}:sha256:" + ClientDigest.of(a),
                "rl:t.key:{" + tenant + "}:sha256:" + ClientDigest.of(b), "rl:t.tenant:{" + tenant + "}:@");
        // the stranger's API key is a secret too: its digest is its hash tag, apart from the tenant's
        assertThat(keys("rl:t.*")).contains("rl:t.key:{sha256:" + ClientDigest.of(tenant) + "}",
                "rl:t.tenant:{sha256:" + ClientDigest.of(tenant) + "}")
                .noneMatch(k -> k.contains(a) || k.contains(b));

        // the tenant gets a budget that refills at once (its bucket is full, and gone, within milliseconds): b's
        // next request shows what its own bucket held
        DirectoryControl.push("{\"tenants\":[{\"id\":\"" + tenant + "\",\"entry\":{\"overrides\":{\"t.tenant\":"
                + "{\"limit\":1000,\"period\":\"1s\"}}}}]}");
        Awaitility.await("the tenant's override in force")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> get(b).statusCode() != 429);
        get(b).then().statusCode(429).body("violated-policies", contains("t.key"))
                .header("RateLimit-Policy", "\"t.key\";q=3;w=3600");
    }

    /** The buckets of this tenant, wherever they are; on a Cluster, all on one node and in one slot. */
    private List<String> bucketKeys() {
        List<Integer> ports = Arrays.stream(config("test.redis.nodes").split(",")).map(RedisCli::port).toList();
        List<String> keys = ports.stream()
                .filter(p -> RedisCli.run(p, "ROLE").startsWith("master"))
                .map(p -> RedisCli.run(p, "--scan", "--pattern", "rl:t.*{" + tenant + "}*"))
                .filter(found -> !found.isEmpty())
                .toList();
        assertThat(keys).as("primaries holding the tenant's buckets").hasSize(1);
        return Arrays.asList(keys.get(0).split("\n"));
    }

    /** Every key matching {@code pattern} on the primaries. */
    private static List<String> keys(String pattern) {
        return Arrays.stream(config("test.redis.nodes").split(","))
                .map(RedisCli::port)
                .filter(p -> RedisCli.run(p, "ROLE").startsWith("master"))
                .flatMap(p -> Arrays.stream(RedisCli.run(p, "--scan", "--pattern", pattern).split("\n")))
                .filter(k -> !k.isEmpty())
                .toList();
    }

    private static long storeCalls() {
        return Arrays.stream(config("test.redis.nodes").split(","))
                .map(RedisCli::port)
                .mapToLong(p -> RedisCli.calls(p, "evalsha") + RedisCli.calls(p, "eval"))
                .sum();
    }

    private String client(String key) {
        return "{\"key\":\"" + key + "\",\"entry\":{\"tenant\":\"" + tenant + "\"}}";
    }

    private static Response get(String key) {
        return given().header("X-API-Key", key).get("/tenants/x");
    }
}
