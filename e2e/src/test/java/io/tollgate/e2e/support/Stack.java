package io.tollgate.e2e.support;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.counter.testing.RedisCluster;

/**
 * The whole fleet as real processes on free loopback ports: a Redis Cluster (3 primaries + 3 replicas),
 * a database of its own on the machine's PostgreSQL, the packaged rules service, the demo backend and N
 * packaged gateways, each configured through the environment as a user would. {@link #behindBalancer} runs two
 * rules-service instances on that one database behind {@link Nginx}, and the gateways reach them through it.
 */
public final class Stack implements AutoCloseable {

    public static final String ADMIN_TOKEN = "e2e-admin-token";
    /** The header that reads and writes with {@link #ADMIN_TOKEN}: every call of the rules service needs a token. */
    public static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + ADMIN_TOKEN);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RedisCluster redis;
    private final TestDatabase database;
    private final JavaService rules;
    /** Every rules-service instance, {@link #rules} first. */
    private final List<JavaService> rulesInstances = new ArrayList<>();
    private final Nginx balancer;
    private final JavaService backend;
    private final List<JavaService> gateways = new ArrayList<>();
    private final WatchCutter watchCutter;
    private final boolean productStoreTimeout;

    private Stack(int gatewayCount, Map<String, String> gatewayEnv, boolean cuttableWatch, boolean productStoreTimeout,
            int rulesCount, boolean bulkRules) {
        this.productStoreTimeout = productStoreTimeout;
        database = new TestDatabase();
        Map<String, String> rulesEnv = new HashMap<>(Map.of(
                "QUARKUS_DATASOURCE_REACTIVE_URL", database.reactiveUrl(),
                "QUARKUS_DATASOURCE_JDBC_URL", database.jdbcUrl(),
                "QUARKUS_DATASOURCE_USERNAME", database.user(),
                "TOLLGATE_ADMIN_TOKEN", ADMIN_TOKEN,
                "TOLLGATE_GATEWAYS_LIVE_WINDOW", "10s"));
        if (rulesCount > 1) {
            // behind nginx, as docs/operations.md says: a caller's address is the one nginx puts in X-Forwarded-For
            rulesEnv.putAll(Map.of(
                    "QUARKUS_HTTP_PROXY_PROXY_ADDRESS_FORWARDING", "true",
                    "QUARKUS_HTTP_PROXY_ALLOW_X_FORWARDED", "true",
                    "QUARKUS_HTTP_PROXY_TRUSTED_PROXIES", "127.0.0.1"));
        }
        for (int i = 1; i <= rulesCount; i++) {
            JavaService instance = new JavaService(i == 1 ? "rules-service" : "rules-service-" + i, "rules-service", rulesEnv);
            rulesInstances.add(bulkRules ? instance.withAllTiers() : instance);
        }
        rules = rulesInstances.get(0);
        backend = new JavaService("demo-backend", "demo-backend", Map.of());
        watchCutter = cuttableWatch ? new WatchCutter() : null;
        try {
            rulesInstances.forEach(JavaService::launch);
            backend.launch();
            // the cluster forms while the rules service and the backend start: its wait is mostly timers (the
            // nodes joining, the replicas syncing), theirs the CPU; the gateways, started after, need all three
            redis = new RedisCluster(3, 1);
            rulesInstances.forEach(JavaService::awaitLive);
            backend.awaitLive();
            balancer = rulesCount > 1 ? Nginx.roundRobin(rulesInstances) : null;
            if (watchCutter != null) {
                watchCutter.target(rules.port());
            }
            for (int i = 1; i <= gatewayCount; i++) {
                Map<String, String> env = gatewayEnvironment("gateway-" + i, gatewayEnv);
                JavaService gateway = new JavaService("gateway-" + i, "gateway-service", env);
                // a gateway on the product's store timeout, or a tighter one, runs as the product runs it
                gateways.add(timesOutLate(env) ? gateway : gateway.withAllTiers());
            }
            gateways.forEach(JavaService::launch);
            gateways.forEach(g -> g.awaitLive().awaitReady());
        } catch (RuntimeException | Error e) {
            // a stack that failed to start must not leave processes behind
            close();
            throw e;
        }
    }

    /** A stack with {@code gateways} gateways; {@code gatewayEnv} adds to or overrides their environment. */
    public static Stack start(int gateways, Map<String, String> gatewayEnv) {
        return new Stack(gateways, gatewayEnv, false, false, 1, false);
    }

    /**
     * Like {@link #start}, with two rules-service instances on the one database behind {@link Nginx} (round robin,
     * no stickiness): the gateways, and whoever asks {@link #balancer()}, reach whichever instance nginx picks.
     */
    public static Stack behindBalancer(int gateways, Map<String, String> gatewayEnv) {
        return new Stack(gateways, gatewayEnv, false, false, 2, false);
    }

    /**
     * Like {@link #start}, with the gateways reaching the rules service through a {@link WatchCutter}, and the rules
     * service on every JIT tier ({@link JavaService#withAllTiers}): the shared stack, whose tests import a million
     * clients.
     */
    public static Stack withCuttableWatch(int gateways, Map<String, String> gatewayEnv) {
        return new Stack(gateways, gatewayEnv, true, false, 1, true);
    }

    /**
     * Like {@link #start}, with the gateways on the product's default {@code tollgate.store.timeout} (none set):
     * for the tests whose point is how the gateways decide on a machine as busy as the one they run on.
     */
    public static Stack withProductStoreTimeout(int gateways, Map<String, String> gatewayEnv) {
        return new Stack(gateways, gatewayEnv, false, true, 1, false);
    }

    private Map<String, String> gatewayEnvironment(String name, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>();
        env.put("TOLLGATE_GATEWAY_UPSTREAM", backend.url(""));
        // the demo's gRPC service, on the backend's own port in HTTP/2, routed as ./tollgate up routes it
        env.put("TOLLGATE_GATEWAY_ROUTES_GRPC_PREFIX", "/tollgate.demo.Echo/");
        env.put("TOLLGATE_GATEWAY_ROUTES_GRPC_URL", backend.url("").replaceFirst("^http://", "h2c://"));
        env.put("TOLLGATE_GATEWAY_INSTANCE_ID", name);
        env.put("TOLLGATE_RULES_URL",
                balancer != null ? balancer.url("") : watchCutter == null ? rules.url("") : watchCutter.url());
        env.put("TOLLGATE_RULES_SNAPSHOT", snapshot(name).toString());
        env.put("QUARKUS_REDIS_HOSTS", String.join(",", redis.addresses()));
        env.put("QUARKUS_REDIS_CLIENT_TYPE", "cluster");
        env.put("TOLLGATE_ADMIN_TOKEN", ADMIN_TOKEN);
        // Ten processes share this machine's two cores during the tests, and a starved check that passed
        // 250 ms turned a race test's 429s into failure-mode 503s; these tests are about counting, not
        // timing, so the store gets a second. The failure-mode test sets 20 ms itself, and the stacks of
        // withProductStoreTimeout keep the product's default.
        if (!productStoreTimeout) {
            env.put("TOLLGATE_STORE_TIMEOUT", "1s");
        }
        env.putAll(extra);
        // The warm-up holds a gateway's readiness back (up to 3 s, its CPU spent) so that cold code makes no check
        // outlast the store timeout; a second is out of cold code's reach, so with it only the store checks run.
        if (timesOutLate(env)) {
            env.putIfAbsent("TOLLGATE_WARMUP_REQUESTS", "0");
        }
        return env;
    }

    /**
     * Whether a gateway of this environment has the tests' store timeout of a second, which neither cold code nor
     * C1's code reaches: it runs without the warm-up's requests and with C1 only ({@link JavaService#launch}).
     */
    private static boolean timesOutLate(Map<String, String> env) {
        return "1s".equals(env.get("TOLLGATE_STORE_TIMEOUT"));
    }

    private static Path snapshot(String gateway) {
        return Repo.path("e2e/target/e2e-state/" + System.nanoTime() + "-" + gateway + "-rules.json");
    }

    /** Writes (creates or replaces) a rule through the rules service's API; returns the new version. */
    public long putRule(String id, String ruleJson) {
        HttpResponse<String> answer = Http.send("PUT", rules.url("/api/v1/rules/" + id),
                Map.of("Authorization", "Bearer " + ADMIN_TOKEN, "Content-Type", "application/json"), ruleJson);
        if (answer.statusCode() != 200 && answer.statusCode() != 201) {
            throw new IllegalStateException("PUT rule " + id + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return rulesVersion();
    }

    /** The rules service's current version. */
    public long rulesVersion() {
        return json(Http.get(rules.url("/api/v1/rules"), ADMIN).body()).path("version").asLong();
    }

    /** One request through gateway {@code index} (0-based) with an API key. */
    public HttpResponse<String> call(int index, String method, String path, String apiKey) {
        return Http.send(method, gateways.get(index).url(path), Map.of("X-API-Key", apiKey),
                method.equals("GET") ? null : "{}");
    }

    /** A URL of the demo backend, reached directly (its control paths). */
    public String backendUrl(String path) {
        return backend.url(path);
    }

    /** How many requests with this API key the backend received. */
    public long backendHits(String apiKey) {
        return json(Http.get(backend.url("/__hits"), Map.of()).body()).path("by_api_key").path(apiKey).asLong(0);
    }

    /** An operation on gateway {@code index}'s management interface, with the admin token. */
    public HttpResponse<String> operation(int index, String method, String pathAndQuery) {
        return Http.send(method, gateways.get(index).managementUrl(pathAndQuery),
                Map.of("Authorization", "Bearer " + ADMIN_TOKEN), "");
    }

    /**
     * An operation on gateway {@code index}'s management interface, with the admin token and the client's
     * {@code apiKey} in the header the gateway counts it by ({@code explain}, a bucket's reset).
     */
    public HttpResponse<String> operation(int index, String method, String pathAndQuery, String apiKey) {
        return Http.send(method, gateways.get(index).managementUrl(pathAndQuery),
                Map.of("Authorization", "Bearer " + ADMIN_TOKEN, "X-API-Key", apiKey), "");
    }

    public List<JavaService> gateways() {
        return gateways;
    }

    /** The rules service; of a stack {@link #behindBalancer}, its first instance. */
    public JavaService rulesService() {
        return rules;
    }

    /** Every rules-service instance: one, or two for a stack {@link #behindBalancer}. */
    public List<JavaService> rulesServices() {
        return rulesInstances;
    }

    /** The nginx in front of the rules-service instances of a stack {@link #behindBalancer}. */
    public Nginx balancer() {
        if (balancer == null) {
            throw new IllegalStateException("this stack runs one rules service, without a balancer");
        }
        return balancer;
    }

    public WatchCutter watchCutter() {
        if (watchCutter == null) {
            throw new IllegalStateException("this stack was started without a watch cutter");
        }
        return watchCutter;
    }

    public RedisCluster redis() {
        return redis;
    }

    static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            throw new IllegalStateException("not JSON: " + body, e);
        }
    }

    @Override
    public void close() {
        gateways.forEach(JavaService::close);
        if (balancer != null) {
            balancer.close();
        }
        rulesInstances.forEach(JavaService::close);
        backend.close();
        if (watchCutter != null) {
            watchCutter.close();
        }
        if (redis != null) {
            redis.close();
        }
        database.close();
    }
}
