package io.tollgate.gateway.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tollgate.grpc.interop.InteropProtos;
import io.tollgate.grpc.interop.InteropServer;

/**
 * Starts what a gateway under test talks to: a {@link TestBackend}, a {@link TestRulesServer} and,
 * unless {@code store=memory} is passed, a private Redis; with {@code grpc=true}, a {@link GrpcEcho} routed
 * under {@code /tollgate.grpc.Echo/}, an {@link InteropServer} under {@code /grpc.testing.TestService/} and
 * {@code /grpc.testing.UnimplementedService/} ({@code test.interop.port}), and a gRPC route to nothing under
 * {@code /tollgate.down.Echo/}; and points the
 * gateway at them. Tests reach them through the config keys this returns ({@code test.backend.url},
 * {@code test.grpc.port}, {@code tollgate.rules.url}, ...).
 * <p>
 * Each distinct set of arguments starts the gateway (and these servers) again: test classes whose needs differ only
 * in what another class adds and they do not use pass that class's arguments too and run in its application (the
 * classes of the default store timeout all pass {@code grpc=true}).
 */
public class GatewayResource implements QuarkusTestResourceLifecycleManager {

    /** The admin bearer token of the gateway under test ({@code tollgate.admin.token}). */
    static final String ADMIN_TOKEN = "test-admin-token";
    /** The gateway's token for the rules service ({@code tollgate.rules.token}), of the gateway scope there. */
    static final String RULES_TOKEN = "test-gateway-token";
    /** A named token of the read scope ({@code tollgate.admin.tokens.reader}). */
    static final String READ_TOKEN = "test-read-token";
    /** A named token of the gateway scope ({@code tollgate.admin.tokens.poller}): no operation here. */
    static final String GATEWAY_SCOPE_TOKEN = "test-poller-token";

    private TestBackend backend;
    private GrpcEcho grpc;
    private InteropServer interop;
    private TestRulesServer rules;
    private AutoCloseable redis;
    private SlowRedis slowRedis;
    private Map<String, String> args = Map.of();

    @Override
    public void init(Map<String, String> initArgs) {
        this.args = initArgs;
    }

    @Override
    public Map<String, String> start() {
        try {
            backend = new TestBackend();
            rules = new TestRulesServer();
            Map<String, String> config = new HashMap<>();
            config.put("test.backend.url", backend.url());
            config.put("tollgate.gateway.upstream", backend.url());
            config.put("tollgate.gateway.routes.dead.prefix", "/dead");
            config.put("tollgate.gateway.routes.dead.url", "http://127.0.0.1:" + closedPort());
            // the same backend spoken to in HTTP/2 by prior knowledge, under /h2c (its client is made on first use)
            config.put("tollgate.gateway.routes.h2c.prefix", "/h2c");
            config.put("tollgate.gateway.routes.h2c.url", "h2c://127.0.0.1:" + backend.port());
            if (args.containsKey("grpc")) {
                // a grpc-java server for the calls of tollgate.grpc.*, and a route to a gRPC upstream that is down
                grpc = new GrpcEcho();
                config.put("test.grpc.port", Integer.toString(grpc.port()));
                config.put("tollgate.gateway.routes.grpc.prefix", "/" + GrpcEcho.SERVICE + "/");
                config.put("tollgate.gateway.routes.grpc.url", "h2c://127.0.0.1:" + grpc.port());
                config.put("tollgate.gateway.routes.grpc-down.prefix", "/tollgate.down.Echo/");
                config.put("tollgate.gateway.routes.grpc-down.url", "h2c://127.0.0.1:" + closedPort());
                // grpc's interop service, and the service of its unimplemented_service case, both to one server
                interop = new InteropServer();
                config.put("test.interop.port", Integer.toString(interop.port()));
                config.put("tollgate.gateway.routes.interop.prefix", "/" + InteropProtos.SERVICE + "/");
                config.put("tollgate.gateway.routes.interop.url", "h2c://127.0.0.1:" + interop.port());
                config.put("tollgate.gateway.routes.interop-unimplemented.prefix",
                        "/grpc.testing.UnimplementedService/");
                config.put("tollgate.gateway.routes.interop-unimplemented.url", "h2c://127.0.0.1:" + interop.port());
            }
            config.put("tollgate.gateway.upstream-timeout", args.getOrDefault("upstream-timeout", "700ms"));
            config.put("tollgate.gateway.instance-id", "gw-test");
            if (args.containsKey("trusted-proxies")) {
                config.put("tollgate.gateway.trusted-proxies", args.get("trusted-proxies"));
            }
            config.put("tollgate.admin.token", ADMIN_TOKEN);
            config.put("tollgate.rules.token", RULES_TOKEN);
            config.put("tollgate.admin.tokens.reader.token", READ_TOKEN);
            config.put("tollgate.admin.tokens.reader.scope", "read");
            config.put("tollgate.admin.tokens.poller.token", GATEWAY_SCOPE_TOKEN);
            config.put("tollgate.admin.tokens.poller.scope", "gateway");
            // the packaged jar of an integration test runs in prod mode: its management interface would take the
            // fixed 9000; a @QuarkusTest uses quarkus.management.test-port=0 instead (GatewayControl.managementPort)
            config.put("quarkus.management.port", Integer.toString(closedPort()));
            // tests fail the store a dozen times, not a hundred; given here, not as a %test property, so the
            // packaged jar of an integration test (prod profile) gets it too
            config.put("tollgate.store.breaker.window", "10");
            config.put("tollgate.rules.poll-interval", args.getOrDefault("poll-interval", "1s"));
            config.put("tollgate.rules.register", args.getOrDefault("register", "true"));
            Path snapshot = Files.createTempDirectory("tollgate-test").resolve("rules.json");
            config.put("tollgate.rules.snapshot", snapshot.toString());
            if (args.containsKey("snapshot")) {
                // the rules service is down at start: only the snapshot on disk can make the gateway ready
                Files.writeString(snapshot, args.get("snapshot"));
                if (args.containsKey("snapshot-gateways")) {
                    // the live-gateway count a gateway keeps beside its snapshot
                    Files.writeString(snapshot.resolveSibling(snapshot.getFileName() + ".gateways"),
                            args.get("snapshot-gateways"));
                }
                config.put("tollgate.rules.url", "http://127.0.0.1:" + closedPort());
                if (args.containsKey("directory-snapshot")) {
                    // the client directory the gateway kept beside its rules, from that same (now dead) service
                    DirectorySnapshots.write(snapshot, config.get("tollgate.rules.url"), args.get("directory-snapshot"));
                }
            } else {
                config.put("tollgate.rules.url", rules.url());
            }
            // every key a test may change is always given, its default when not asked for: an integration
            // test's launch keeps an earlier class's value otherwise (seen: ClientIdleIT's 1.5 s idle timeout
            // cut ProxyIT's slow reader; ClusterIT's client-type=cluster failed every check of CoalescingIT)
            config.put("quarkus.http.idle-timeout", args.getOrDefault("idle-timeout", "75s"));
            config.put("tollgate.store.timeout", args.getOrDefault("store.timeout", "20ms"));
            config.put("quarkus.http.limits.max-body-size", args.getOrDefault("max-body-size", "100G"));
            // the tests of the store path count what each request spends in the store; the lease tests turn
            // leases on ("leases" = "on")
            config.put("tollgate.leases.enabled", Boolean.toString("on".equals(args.get("leases"))));
            // the limiter's stages that are optimisations can each be turned off ("rejections" = "off")
            config.put("tollgate.rejections.remembered", Boolean.toString(!"off".equals(args.get("rejections"))));
            // tests flood from 127.0.0.1 and are served from it after; the repeat-offender tests turn the penalty on
            // ("repeat-offenders" = "on") with a short one
            config.put("tollgate.gateway.repeat-offenders.enabled",
                    Boolean.toString("on".equals(args.get("repeat-offenders"))));
            config.put("tollgate.gateway.repeat-offenders.max-closes",
                    args.getOrDefault("repeat-offenders.max-closes", "5"));
            config.put("tollgate.gateway.repeat-offenders.penalty",
                    args.getOrDefault("repeat-offenders.penalty", "5m"));
            // a metered answer's client that takes nothing for a second is let go, and what the gateway then reads
            // of the rest for the usage is bounded low enough, in bytes and time, for a test to pass each bound
            config.put("tollgate.settle.client-stall", args.getOrDefault("settle.client-stall", "1s"));
            config.put("tollgate.settle.rest-max-size", args.getOrDefault("settle.rest-max-size", "8M"));
            config.put("tollgate.settle.rest-timeout", args.getOrDefault("settle.rest-timeout", "5s"));
            config.put("tollgate.warmup.requests", args.getOrDefault("warmup.requests", "200"));
            config.put("tollgate.warmup.max-time", args.getOrDefault("warmup.max-time", "3s"));
            boolean inProcess = "memory".equals(args.get("store"));
            config.put("tollgate.store.type", inProcess ? "memory" : "redis");
            config.put("quarkus.redis.client-type", "standalone"); // a cluster's config below says otherwise
            if (inProcess) {
                return config;
            }
            if ("absent".equals(args.get("redis"))) {
                // a Redis that is down when the gateway starts: nothing listens there
                config.put("quarkus.redis.hosts", "redis://127.0.0.1:" + closedPort());
            } else {
                RedisServers.Started started = RedisServers.start(args.getOrDefault("redis", "node"));
                redis = started.handle();
                config.putAll(started.config());
                if (args.containsKey("redis-delay-ms")) {
                    // the gateway reaches its Redis through a proxy that passes every reply on late;
                    // test.redis.port stays the real one
                    slowRedis = new SlowRedis(Integer.parseInt(config.get("test.redis.port")),
                            Long.parseLong(args.get("redis-delay-ms")));
                    config.put("quarkus.redis.hosts", "redis://127.0.0.1:" + slowRedis.port());
                }
            }
            return config;
        } catch (Exception e) {
            throw new IllegalStateException("test servers did not start", e);
        }
    }

    /** A port nothing listens on (bound, then released). */
    /** The backend this resource started. */
    protected TestBackend backend() {
        return backend;
    }

    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void stop() {
        for (AutoCloseable c : new AutoCloseable[]{backend, rules, grpc, interop, slowRedis, redis}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // best effort: the JVM is going away with the test run
            }
        }
    }

}
