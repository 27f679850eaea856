package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.FreePorts;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Launcher;
import io.tollgate.e2e.support.ListeningSockets;
import io.tollgate.e2e.support.TestDatabase;

/**
 * {@code ./tollgate up --tls} as a user runs it, closed by default: every process it starts listens on loopback only,
 * its output (a pipe here, as when teed into a file) and its logs never hold the admin token, only where it is
 * kept; the kept token opens the API and a gateway's operations while {@code dev-admin-token} opens
 * nothing, the gateways poll with a token of scope {@code gateway} that can change nothing (and with which the
 * rules service's live view still reads them); the gateway serves HTTPS with a certificate of a local CA that
 * docs/protocols.md's calls trust and a second {@code up --tls} keeps; the WebSocket client up names echoes;
 * {@code ./tollgate down} stops every process. The stack is the
 * test's own: free ports, a state folder of its own, a database of its own, one gateway, the packaged fast-jars
 * as they are ({@code TOLLGATE_AOT=no}, {@code TOLLGATE_BUILD=no}): it runs beside a stack of {@code up} and
 * the other tests.
 */
class LauncherTest {

    private static final Duration UP = Duration.ofSeconds(180);
    private static final Duration DOWN = Duration.ofSeconds(60);
    private static final Pattern TOKEN_KEPT_IN = Pattern.compile("admin token: kept in (\\S+) ");

    @Test
    void upListensOnLoopbackOnlyWithTokensOfItsOwnAndDownStopsEverything() throws IOException {
        Path state = Files.createTempDirectory("tollgate-launcher-");
        try (TestDatabase database = new TestDatabase()) {
            Ports ports = Ports.free();
            Map<String, String> env = environment(state, database, ports);
            Launcher.Run up = Launcher.run(env, UP, "up", "--tls");
            List<Long> pids = new ArrayList<>();
            try {
                assertThat(up.exitCode()).as(up.output()).isZero();
                pids.addAll(startedPids(state));
                everyProcessListensOnLoopbackOnly(pids, ports);
                theTokenIsNamedNotPrintedAndNoLogHoldsIt(up, state);
                theKeptTokenOpensAndTheWellKnownOneDoesNot(state, ports);
                theGatewaysTokenPollsAndChangesNothing(state, ports);
                theDocumentedHttpsCallsAnswerTrustingTheLocalCa(up, state, ports);
                aSecondUpWithTlsKeepsTheCa(env, state, ports);
                thePrintedWebSocketClientEchoes(up);
            } finally {
                Launcher.Run down = Launcher.run(env, DOWN, "down");
                assertThat(down.exitCode()).as(down.output()).isZero();
            }
            await("every process up started has stopped").atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(pids).noneMatch(LauncherTest::alive));
        } finally {
            deleteTree(state);
        }
    }

    /**
     * docs/protocols.md's curl lines for the launcher's stack, as written but for the port and the state folder, and
     * the HTTPS line up printed: h2 by ALPN and HTTP/1.1, each trusting only the CA up made.
     */
    private static void theDocumentedHttpsCallsAnswerTrustingTheLocalCa(Launcher.Run up, Path state, Ports ports)
            throws IOException {
        Path ca = state.resolve("tls").resolve("ca.crt");
        assertThat(up.output()).as("up says how to trust its CA").contains("curl --cacert " + ca);
        String page = Files.readString(Launcher.root().resolve("docs/protocols.md"));
        Matcher block = Pattern.compile("```sh\n(\\./tollgate up --tls\n.*?)```", Pattern.DOTALL).matcher(page);
        assertThat(block.find()).as("docs/protocols.md's block of up --tls").isTrue();
        List<String> answers = new ArrayList<>();
        for (String line : block.group(1).lines().filter(l -> l.startsWith("curl ")).toList()) {
            String command = line.replaceFirst("\\s+#.*$", "").replace(".tollgate/tls/ca.crt", ca.toString())
                    .replace(":8443", ":" + ports.gatewayTls);
            answers.add(curl(command));
        }
        assertThat(answers).as("h2 by ALPN, then HTTP/1.1").containsExactly("2 200", "1.1 200");
        Matcher printed = Pattern.compile("^\\s*(curl --cacert \\S+ .*https://\\S+)", Pattern.MULTILINE)
                .matcher(up.output());
        assertThat(printed.find()).as("up prints an HTTPS call:\n" + up.output()).isTrue();
        assertThat(curl(printed.group(1))).isEqualTo("2 200");
    }

    /** A second {@code up --tls} while the stack runs: the CA is the same file, and HTTPS still answers. */
    private static void aSecondUpWithTlsKeepsTheCa(Map<String, String> env, Path state, Ports ports) throws IOException {
        Path ca = state.resolve("tls").resolve("ca.crt");
        byte[] before = Files.readAllBytes(ca);
        Launcher.Run again = Launcher.run(env, UP, "up", "--tls");
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(again.output()).doesNotContain("made a local CA");
        assertThat(Files.readAllBytes(ca)).as("the CA a client already trusts").isEqualTo(before);
        assertThat(curl("curl --cacert " + ca + " https://localhost:" + ports.gatewayTls + "/orders/1"))
                .isEqualTo("2 200");
    }

    /** The WebSocket line up prints uses a client of a Debian package, and a line sent through it comes back. */
    private static void thePrintedWebSocketClientEchoes(Launcher.Run up) {
        assertThat(up.output()).as("tools no distribution packages").doesNotContain("websocat", "grpcurl");
        Matcher printed = Pattern.compile("(python3 demo/wsclient\\.py .*?/ws/echo)").matcher(up.output());
        assertThat(printed.find()).as("up prints a WebSocket call:\n" + up.output()).isTrue();
        Launcher.Run echoed = Launcher.shell(printed.group(1), "through the gateway\n", Duration.ofSeconds(60));
        assertThat(echoed.exitCode()).as(echoed.output()).isZero();
        assertThat(echoed.output()).contains("through the gateway");
    }

    /** {@code command}, a curl call, with {@code -s -o /dev/null -w '%{http_version} %{http_code}'} added. */
    private static String curl(String command) {
        Launcher.Run run = Launcher.shell("curl -s -o /dev/null -w '%{http_version} %{http_code}' "
                + command.substring("curl ".length()), "", Duration.ofSeconds(60));
        assertThat(run.exitCode()).as("`%s`: %s", command, run.output()).isZero();
        return run.output().strip();
    }

    private static void everyProcessListensOnLoopbackOnly(List<Long> pids, Ports ports) {
        assertThat(pids).as("rules service, demo backend, a gateway, 8 Redis nodes").hasSize(11);
        List<Integer> listened = new ArrayList<>();
        for (long pid : pids) {
            List<InetSocketAddress> sockets = ListeningSockets.of(pid);
            assertThat(sockets).as("pid %d listens", pid).isNotEmpty();
            for (InetSocketAddress socket : sockets) {
                assertThat(socket.getAddress().isLoopbackAddress())
                        .as("pid %d listens on %s, not on loopback", pid, socket).isTrue();
                listened.add(socket.getPort());
            }
        }
        assertThat(listened).as("the ports the launcher was given").containsAll(ports.services());
    }

    /** Up's output here is a pipe, as when a user tees it into a file: it says where the token is, not what. */
    private static void theTokenIsNamedNotPrintedAndNoLogHoldsIt(Launcher.Run up, Path state) throws IOException {
        String token = Files.readString(state.resolve("admin-token")).strip();
        Matcher named = TOKEN_KEPT_IN.matcher(up.output());
        assertThat(named.find()).as("up names the token's file:\n" + up.output()).isTrue();
        assertThat(Path.of(named.group(1))).isEqualTo(state.resolve("admin-token"));
        assertThat(up.output()).as("up's output").doesNotContain(token);
        try (Stream<Path> logs = Files.walk(state.resolve("logs"))) {
            for (Path log : logs.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1)).as("%s", log)
                        .doesNotContain(token);
            }
        }
    }

    private static void theKeptTokenOpensAndTheWellKnownOneDoesNot(Path state, Ports ports) throws IOException {
        String token = Files.readString(state.resolve("admin-token")).strip();
        assertThat(token).hasSizeGreaterThan(40).isNotEqualTo("dev-admin-token");
        String rules = "http://127.0.0.1:" + ports.rules + "/api/v1/rules";
        assertThat(status(rules, token)).as("the kept token reads the rules").isEqualTo(200);
        assertThat(status(rules, "dev-admin-token")).as("the well-known token").isEqualTo(403);
        assertThat(status(rules, null)).isEqualTo(401);
        String explain = "http://127.0.0.1:" + ports.gatewayManagement + "/tollgate/explain?path=/orders/1";
        assertThat(status(explain, token)).as("a gateway's operations open to the kept token").isEqualTo(200);
        assertThat(status(explain, "dev-admin-token")).isEqualTo(403);
    }

    private static void theGatewaysTokenPollsAndChangesNothing(Path state, Ports ports) throws IOException {
        String admin = Files.readString(state.resolve("admin-token")).strip();
        String gateway = Files.readString(state.resolve("gateway-token")).strip();
        assertThat(gateway).isNotEqualTo(admin).hasSizeGreaterThan(40);
        String api = "http://127.0.0.1:" + ports.rules + "/api/v1";
        assertThat(status(api + "/rules", gateway)).as("the gateway token polls").isEqualTo(200);
        HttpResponse<String> write = Http.send("PUT", api + "/rules/launcher.probe",
                Map.of("Authorization", "Bearer " + gateway, "Content-Type", "application/json"), "{}");
        assertThat(write.statusCode()).as(write.body()).isEqualTo(403);
        assertThat(write.body()).contains("insufficient-scope");
        assertThat(status(api + "/gateways", gateway)).as("the registry is no gateway's business").isEqualTo(403);
        // the gateway registered with that token, and the live view reads its explain with it
        await("the rules service's explain, answered by gateway-1").atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> {
                    HttpResponse<String> explained = Http.get(api + "/explain?method=POST&path=/orders/1",
                            Map.of("Authorization", "Bearer " + admin, "X-API-Key", "ak_pro"));
                    assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
                    assertThat(explained.body()).contains("\"gateway\":\"gateway-1\"");
                });
    }

    private static Map<String, String> environment(Path state, TestDatabase database, Ports ports) {
        Map<String, String> env = new HashMap<>();
        env.put("TOLLGATE_STATE_DIR", state.toString());
        env.put("TOLLGATE_AOT", "no");
        env.put("TOLLGATE_BUILD", "no");
        env.put("TOLLGATE_PG_HOST", database.host());
        env.put("TOLLGATE_PG_PORT", database.port());
        env.put("TOLLGATE_PG_USER", database.user());
        env.put("TOLLGATE_PG_DB", database.name());
        env.put("TOLLGATE_REDIS_BASE_PORT", Integer.toString(ports.redisBase));
        env.put("TOLLGATE_RULES_PORT", Integer.toString(ports.rules));
        env.put("TOLLGATE_RULES_MANAGEMENT_PORT", Integer.toString(ports.rulesManagement));
        env.put("TOLLGATE_GATEWAY_PORTS", Integer.toString(ports.gateway));
        env.put("TOLLGATE_GATEWAY_MANAGEMENT_PORTS", Integer.toString(ports.gatewayManagement));
        env.put("TOLLGATE_GATEWAY_TLS_PORTS", Integer.toString(ports.gatewayTls));
        env.put("TOLLGATE_BACKEND_PORT", Integer.toString(ports.backend));
        // tokens of its own: none from the environment
        env.put("TOLLGATE_ADMIN_TOKEN", null);
        env.put("TOLLGATE_GATEWAY_TOKEN", null);
        return env;
    }

    /** The PIDs of what up started, from its PID files; PostgreSQL is the machine's, not up's. */
    private static List<Long> startedPids(Path state) throws IOException {
        try (Stream<Path> files = Files.list(state.resolve("run"))) {
            return files.filter(f -> f.toString().endsWith(".pid"))
                    .map(f -> {
                        try {
                            return Long.parseLong(Files.readString(f).strip());
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .toList();
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static int status(String url, String token) {
        return Http.get(url, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token)).statusCode();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The stack's ports, all free when chosen; Redis takes 8 in a row, and their cluster bus ports 10000 above. */
    record Ports(int redisBase, int rules, int rulesManagement, int gateway, int gatewayManagement, int gatewayTls,
            int backend) {

        static Ports free() {
            return new Ports(redisRun(), FreePorts.next(), FreePorts.next(), FreePorts.next(), FreePorts.next(),
                    FreePorts.next(), FreePorts.next());
        }

        List<Integer> services() {
            return List.of(redisBase, redisBase + 7, rules, rulesManagement, gateway, gatewayManagement, gatewayTls,
                    backend);
        }

        /** A base below the ephemeral range whose 8 ports and their bus ports are free. */
        private static int redisRun() {
            for (int attempt = 0; attempt < 100; attempt++) {
                int base = ThreadLocalRandom.current().nextInt(15_000, 22_000);
                boolean free = true;
                for (int i = 0; i < 8 && free; i++) {
                    free = free(base + i) && free(base + i + 10_000);
                }
                if (free) {
                    return base;
                }
            }
            throw new IllegalStateException("no run of 8 free ports for Redis");
        }

        private static boolean free(int port) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }
}
