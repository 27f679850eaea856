package io.tollgate.gateway.limiter;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.operations;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.H2Client;
import io.tollgate.gateway.support.RedisCli;

/**
 * Clients that leave while their check runs, on a store that answers every call 150 ms late: the check's answer
 * comes for an exchange already over (an HTTP/1.1 connection dropped, an HTTP/2 stream reset, an HTTP/2 connection
 * closed), and the {@code concurrency} lease it took goes back at once. Nothing reaches the backend, no lease of
 * the client is left live in Redis within one lease time (a leaked one would be renewed for ever), and the next
 * request is admitted with all the other slots free.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "redis-delay-ms", value = "150"),
        @ResourceArg(name = "store.timeout", value = "2s")})
class GoneWhileCheckedTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private String apiKey;

    @BeforeEach
    void rule() {
        apiKey = "gone-" + UUID.randomUUID();
        resetBackend();
        install("""
                [{"id": "gone", "match": {"path": "/**"}, "key": "api_key", "algorithm": "concurrency",
                  "limit": 2, "slot_ttl": "2s", "failure_mode": "closed"}]""");
    }

    @Test
    void http11ConnectionsDroppedWhileCheckedHoldNoSlot() throws IOException {
        for (int i = 0; i < 10; i++) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port()), 10_000);
                socket.getOutputStream().write(("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: " + apiKey
                        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                socket.setSoLinger(true, 0); // an RST: the gateway reads the close while the check waits for Redis
            }
        }
        assertNoSlotHeldAndNothingForwarded();
    }

    @Test
    void http2StreamsResetWhileCheckedHoldNoSlot() throws Exception {
        try (H2Client h2 = new H2Client(port(), false)) {
            assertThat(h2.resetUntilClosed("/hold", 20, apiKey)).as("the gateway keeps a connection of 20 resets")
                    .isEqualTo(-1);
        }
        assertNoSlotHeldAndNothingForwarded();
    }

    @Test
    void http2ConnectionsClosedWhileCheckedHoldNoSlot() throws Exception {
        for (int i = 0; i < 10; i++) {
            try (H2Client h2 = new H2Client(port(), false)) {
                h2.closeAfterHeaders("/hold", apiKey);
            }
        }
        assertNoSlotHeldAndNothingForwarded();
    }

    private void assertNoSlotHeldAndNothingForwarded() {
        await("no live lease of the client in Redis").atMost(LEASE).pollInterval(Duration.ofMillis(50))
                .until(() -> liveLeases() == 0);
        assertThat(backendHits()).as("requests forwarded for clients gone").isZero();
        var answer = RestAssured.given().header("X-API-Key", apiKey).get("/anything");
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.header("RateLimit")).isEqualTo("\"gone\";r=1;t=0");
    }

    /** The client's leases live now: ZCOUNT of its key from now (Redis TIME) on. */
    private long liveLeases() {
        String key = operations().header("X-API-Key", apiKey).get("/tollgate/explain?path=/hold").jsonPath()
                .getString("rules[0].key");
        int redis = Integer.parseInt(config("test.redis.port"));
        String[] time = RedisCli.run(redis, "TIME").split("\n");
        long nowMicros = Long.parseLong(time[0].strip()) * 1_000_000 + Long.parseLong(time[1].strip());
        return Long.parseLong(RedisCli.run(redis, "ZCOUNT", key, "(" + nowMicros, "+inf"));
    }
}
