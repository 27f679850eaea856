package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.Metrics;
import io.tollgate.e2e.support.TestDatabase;
import io.tollgate.e2e.support.WatchCutter;

/**
 * Two packaged gateways (counting in their own memory: the directory is the point, not the counters) on the
 * packaged rules service and PostgreSQL. One watches the rules service directly; the other reaches it through a
 * {@link WatchCutter} and polls once an hour, so while its watch stream is cut it hears of nothing. More than a
 * page of directory changes is written while it is cut (imports, changes, deletes of clients and of a tenant,
 * a tenant's new plan); once the stream is back it takes a whole copy from the service (more changes wait than a
 * quarter of what it holds) and holds exactly what the service holds, as the gateway that watched throughout
 * does; and a gateway just behind applies one small change as a page, without a copy.
 */
class DirectoryCatchUpTest {

    private static final String TOKEN = "e2e-catchup-token";
    private static final String RULE = """
            {"id": "e2e.catchup", "match": {"path": "/catchup/**"}, "key": "api_key", "limit": 500, "period": "1h",
             "plans": {"free": {"limit": 1000}, "pro": {"limit": 2000}}}""";
    private static final int FIRST = 2_000;
    /** More than a page of the feed (10,000 changes). */
    private static final int LATER = 11_000;
    private static final int CHANGED = 1_000;
    private static final int DELETED = 30;
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    static Path state;
    private static TestDatabase database;
    private static JavaService rules;
    private static JavaService backend;
    private static WatchCutter cutter;
    private static JavaService near;
    private static JavaService far;

    @BeforeAll
    static void start() {
        database = new TestDatabase();
        rules = new JavaService("catchup-rules", "rules-service", Map.of(
                "QUARKUS_DATASOURCE_REACTIVE_URL", database.reactiveUrl(),
                "QUARKUS_DATASOURCE_JDBC_URL", database.jdbcUrl(),
                "QUARKUS_DATASOURCE_USERNAME", database.user(),
                "TOLLGATE_ADMIN_TOKEN", TOKEN));
        backend = new JavaService("catchup-backend", "demo-backend", Map.of());
        rules.launch();
        backend.launch();
        rules.awaitLive();
        backend.awaitLive();
        cutter = new WatchCutter();
        cutter.target(rules.port());
        near = gateway("catchup-near", rules.url(""));
        far = gateway("catchup-far", cutter.url());
        near.launch();
        far.launch();
        near.awaitLive().awaitReady();
        far.awaitLive().awaitReady();
    }

    private static JavaService gateway(String name, String rulesUrl) {
        Map<String, String> env = new HashMap<>();
        env.put("TOLLGATE_GATEWAY_UPSTREAM", backend.url(""));
        env.put("TOLLGATE_GATEWAY_INSTANCE_ID", name);
        env.put("TOLLGATE_RULES_URL", rulesUrl);
        env.put("TOLLGATE_RULES_POLL_INTERVAL", "1h");
        env.put("TOLLGATE_RULES_SNAPSHOT", state.resolve(name + "-rules.json").toString());
        env.put("TOLLGATE_STORE_TYPE", "memory");
        env.put("TOLLGATE_ADMIN_TOKEN", TOKEN);
        return new JavaService(name, "gateway-service", env);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[]{far, near, cutter, backend, rules, database}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // the others still close
                }
            }
        }
    }

    @Test
    void aGatewayFarBehindTakesTheNextCopyWholeAndHoldsWhatTheServiceHoldsOneJustBehindAppliesTheChange() {
        write("POST", "/api/v1/rules", "application/json", RULE);
        write("PUT", "/api/v1/tenants/acme", "application/json", "{\"plan\": \"pro\"}");
        // even clients on pro, odd ones of tenant acme with no plan of their own (acme's: pro)
        write("PUT", "/api/v1/clients", "application/x-ndjson", lines(0, FIRST,
                i -> i % 2 == 0 ? "\"plan\": \"pro\"" : "\"tenant\": \"acme\""));
        long seq = seqOf(write("PUT", "/api/v1/clients/probe-first", "application/json", "{\"plan\": \"pro\"}"));
        awaitSeq(near, seq);
        awaitSeq(far, seq);

        cutter.cut(true);
        double farCopies = copies(far);
        double farWhole = copies(far, "how=whole");
        write("PUT", "/api/v1/clients", "application/x-ndjson", lines(0, LATER, i -> "\"plan\": \"free\"", "n-"));
        // c-0 .. c-999 changed: every one now on free, the odd ones leaving acme
        write("PUT", "/api/v1/clients", "application/x-ndjson", lines(0, CHANGED, i -> "\"plan\": \"free\""));
        for (int i = CHANGED; i < CHANGED + DELETED; i++) {
            write("DELETE", "/api/v1/clients/c-" + i, null, null);
        }
        write("PUT", "/api/v1/tenants/acme", "application/json", "{\"plan\": \"free\"}");
        write("PUT", "/api/v1/tenants/gone", "application/json", "{\"plan\": \"pro\"}");
        write("DELETE", "/api/v1/tenants/gone", null, null);
        long big = seqOf(write("PUT", "/api/v1/clients/probe-big", "application/json", "{\"plan\": \"pro\"}"));
        awaitSeq(near, big);

        double nearCopies = copies(near);
        long small = seqOf(write("PUT", "/api/v1/clients/probe-small", "application/json", "{\"plan\": \"free\"}"));
        awaitSeq(near, small);
        assertThat(copies(near)).as("a gateway one change behind applies it as a page").isEqualTo(nearCopies);
        assertThat(seqOf(far)).as("the cut gateway heard of nothing").isEqualTo(seq);

        cutter.cut(false);
        awaitSeq(far, small);
        assertThat(copies(far) - farCopies).as("the gateway far behind put one next copy in force").isEqualTo(1);
        assertThat(copies(far, "how=whole") - farWhole).as("a whole copy from the service").isEqualTo(1);
        for (JavaService gateway : new JavaService[]{near, far}) {
            assertHoldsTheDirectory(gateway);
        }
    }

    /** What the service holds, asked of {@code gateway} client by client through the policy it enforces. */
    private static void assertHoldsTheDirectory(JavaService gateway) {
        int live = FIRST - DELETED + LATER + 3;
        assertThat(Metrics.of(gateway).sum("tollgate_directory_clients")).as(gateway.name() + " clients")
                .isEqualTo(live);
        Map<String, Integer> expected = new HashMap<>();
        IntStream.range(0, CHANGED).forEach(i -> expected.put("c-" + i, 1000));
        IntStream.range(CHANGED, CHANGED + DELETED).forEach(i -> expected.put("c-" + i, 500));
        IntStream.range(CHANGED + DELETED, FIRST).forEach(i -> expected.put("c-" + i, i % 2 == 0 ? 2000 : 1000));
        IntStream.range(0, LATER).filter(i -> i % 25 == 0).forEach(i -> expected.put("n-" + i, 1000));
        expected.put("probe-first", 2000);
        expected.put("probe-big", 2000);
        expected.put("probe-small", 1000);
        Map<String, Integer> seen = new HashMap<>();
        expected.keySet().forEach(key -> seen.put(key, limitFor(gateway, key)));
        assertThat(seen).as(gateway.name() + ": the limit each client gets").isEqualTo(expected);
    }

    /** The limit {@code gateway}'s RateLimit-Policy reports for a request of {@code key}. */
    private static int limitFor(JavaService gateway, String key) {
        HttpResponse<String> answer = Http.get(gateway.url("/catchup/x"), Map.of("X-API-Key", key));
        String policy = answer.headers().firstValue("RateLimit-Policy").orElse("");
        int q = policy.indexOf(";q=");
        return q < 0 ? -1 : Integer.parseInt(policy.substring(q + 3, policy.indexOf(';', q + 3)));
    }

    /** NDJSON lines of clients c-from .. c-(to-1) (or another prefix), each with {@code fields}. */
    private static String lines(int from, int to, IntFunction<String> fields) {
        return lines(from, to, fields, "c-");
    }

    private static String lines(int from, int to, IntFunction<String> fields, String prefix) {
        return IntStream.range(from, to)
                .mapToObj(i -> "{\"key\": \"" + prefix + i + "\", " + fields.apply(i) + "}")
                .collect(Collectors.joining("\n", "", "\n"));
    }

    /** One write; a single client's path ({@code /api/v1/clients/<key>}) goes as the API, key in X-API-Key. */
    private static HttpResponse<String> write(String method, String path, String type, String body) {
        Map<String, String> headers = new HashMap<>(Map.of("Authorization", "Bearer " + TOKEN));
        if (type != null) {
            headers.put("Content-Type", type);
        }
        String client = "/api/v1/clients/";
        if (path.startsWith(client) && path.length() > client.length()) {
            headers.put("X-API-Key", path.substring(client.length()));
            path = client + "key";
        }
        HttpResponse<String> answer = Http.send(method, rules.url(path), headers, body, Duration.ofMinutes(2));
        assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isBetween(200, 204);
        return answer;
    }

    private static long seqOf(HttpResponse<String> written) {
        return Long.parseLong(written.headers().firstValue("ETag").orElseThrow().replace("\"", ""));
    }

    private static long seqOf(JavaService gateway) {
        return (long) Metrics.of(gateway).sum("tollgate_directory_seq");
    }

    private static double copies(JavaService gateway, String... labels) {
        return Metrics.of(gateway).sum("tollgate_directory_copies_total", labels);
    }

    private static void awaitSeq(JavaService gateway, long seq) {
        await(gateway.name() + " at change " + seq).atMost(BOUND).pollInterval(Duration.ofMillis(100))
                .until(() -> seqOf(gateway) >= seq);
    }
}
