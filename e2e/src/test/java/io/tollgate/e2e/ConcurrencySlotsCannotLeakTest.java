package io.tollgate.e2e;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.counter.testing.Resp;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.H2Frames;
import io.tollgate.e2e.support.Stack;

/**
 * A {@code concurrency} rule's slots cannot leak, on the packaged fleet (docs/protocols.md, "A request's settlement
 * ends exactly once"): after HTTP/2 floods of HEADERS and RST_STREAM, TCP connections dropped while their check
 * runs (HTTP/1.1 and HTTP/2), and answers the upstream never gave in time, the rule's sorted set in Redis holds no
 * live lease within one lease time, and the next request is admitted with all the slots but its own free. Requests
 * go to {@code /hold/**}, which the demo backend holds until released, and to its echo, each through all three
 * gateways.
 */
class ConcurrencySlotsCannotLeakTest {

    private static final String RULE = "e2e.slots";
    private static final int LIMIT = 2;
    private static final Duration SLOT_TTL = Duration.ofSeconds(6);
    private static final List<String> PATHS = List.of("/hold/slots/a", "/echo/slots/b");

    private final Stack stack = SharedStack.get();

    @BeforeAll
    static void rule() {
        Stack stack = SharedStack.get();
        stack.putRule(RULE, """
                {"id": "%s", "match": {"path": "/*/slots/**"}, "key": "api_key", "algorithm": "concurrency",
                 "limit": %d, "slot_ttl": "%ds", "failure_mode": "closed"}""".formatted(RULE, LIMIT, SLOT_TTL.toSeconds()));
        Fleet.awaitEverywhere(stack, RULE, "/echo/slots/probe", Duration.ofSeconds(10));
    }

    @Test
    void floodsOfHeadersAndResetOverHttp2LeaveEverySlotFree() {
        String key = Fleet.freshKey("flood");
        List<H2Frames> connections = new ArrayList<>();
        int sent = 0;
        for (int round = 0; round < 3; round++) {
            for (int gateway = 0; gateway < stack.gateways().size(); gateway++) {
                H2Frames h2 = H2Frames.open(stack.gateways().get(gateway).port());
                connections.add(h2);
                sent += h2.resetEach(500, PATHS.get((gateway + round) % PATHS.size()), Map.of("X-API-Key", key));
            }
        }
        // dropped under the checks of their last streams, if the gateway did not close them first (it closes a
        // connection after 200 resets, under the checks of its last ones)
        connections.forEach(H2Frames::abort);
        assertThat(sent).as("streams opened and reset").isGreaterThanOrEqualTo(900);
        assertEverySlotFreeWithinOneLease(key);
    }

    @Test
    void connectionsDroppedWhileTheirCheckRunsLeaveEverySlotFree() throws IOException {
        String key = Fleet.freshKey("dropped");
        for (int i = 0; i < 60; i++) {
            int port = stack.gateways().get(i % stack.gateways().size()).port();
            String path = PATHS.get(i % PATHS.size());
            if (i % 2 == 0) {
                H2Frames h2 = H2Frames.open(port);
                h2.get(path, Map.of("X-API-Key", key));
                h2.abort();
            } else {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + key
                            + "\r\n\r\n").getBytes(ISO_8859_1));
                    socket.setSoLinger(true, 0); // an RST: the gateway reads the close at once, while it checks
                }
            }
        }
        assertEverySlotFreeWithinOneLease(key);
    }

    @Test
    void answersTheUpstreamNeverGaveInTimeLeaveEverySlotFree() throws Exception {
        String key = Fleet.freshKey("deadline");
        List<H2Frames> connections = new ArrayList<>();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            H2Frames h2 = H2Frames.open(stack.gateways().get(i % stack.gateways().size()).port());
            connections.add(h2);
            // the call's deadline, shorter than upstream-timeout, bounds the gateway's wait for the held answer: 504
            calls.add(h2.ended(h2.get("/hold/slots/deadline", Map.of("X-API-Key", key, "grpc-timeout", "500m"))));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the admitted calls waited for their deadline")
                .isGreaterThanOrEqualTo(Duration.ofMillis(500));
        connections.forEach(H2Frames::close);
        assertEverySlotFreeWithinOneLease(key);
    }

    /**
     * Within one lease of now, the rule's sorted set for {@code key} holds no live lease (a lease given back is gone;
     * one kept alive by a renewal would stay), and a request is then admitted with {@code LIMIT - 1} remaining.
     */
    private void assertEverySlotFreeWithinOneLease(String key) {
        String counterKey = counterKey(key);
        await("every slot of " + counterKey + " given back or expired").atMost(SLOT_TTL)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> liveLeases(counterKey) == 0);
        var answer = stack.call(0, "GET", "/echo/slots/after", key);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("RateLimit").orElseThrow()).contains("r=" + (LIMIT - 1));
    }

    /** The counter key of the rule for the client {@code key}, as explain names it. */
    private String counterKey(String key) {
        var explained = stack.operation(0, "GET", "/tollgate/explain?path=/echo/slots/x", key);
        assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
        JsonNode rule = json(explained.body()).path("rules").get(0);
        assertThat(rule.path("id").asText()).isEqualTo(RULE);
        return rule.path("key").asText();
    }

    /** The leases of {@code counterKey} live now on the primary that owns it: ZCOUNT key (now +inf, now Redis TIME. */
    private long liveLeases(String counterKey) throws IOException {
        int port = Integer.parseInt(stack.redis().ownerOf(counterKey).replaceFirst(".*:", ""));
        List<?> time = (List<?>) Resp.call(port, "TIME");
        long nowMicros = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
        return (Long) Resp.call(port, "ZCOUNT", counterKey, "(" + nowMicros, "+inf");
    }

    private static JsonNode json(String body) {
        try {
            return new ObjectMapper().readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException(body, e);
        }
    }
}
