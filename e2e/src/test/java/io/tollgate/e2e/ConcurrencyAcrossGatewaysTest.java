package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.e2e.support.ClientSocket;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Stack;

/**
 * {@code algorithm: concurrency} over three gateways on a Redis Cluster, with a backend that holds its answers
 * until told and echoes WebSocket messages: exactly {@code limit} requests of a client in flight across the fleet,
 * and exactly {@code limit} of its WebSockets open; a client that gives up on a request, or drops a socket without
 * a close frame, frees its slot at once; a gateway killed while it relays requests and sockets holds their slots
 * only until their lease ends. A stack of its own: it kills a gateway.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConcurrencyAcrossGatewaysTest {

    private static final String HELD = "/hold/report";
    private static final String ECHO = "/ws/echo";

    private static Stack stack;
    private static ExecutorService pool;

    @BeforeAll
    static void start() {
        stack = Stack.start(3, Map.of());
        pool = Executors.newCachedThreadPool();
        // the lease is long enough to outlast the checks right after a kill, short enough to wait for
        stack.putRule("e2e.inflight", """
                {"id": "e2e.inflight", "match": {"path": "/**"}, "key": "api_key", "algorithm": "concurrency",
                 "limit": 2, "slot_ttl": "10s", "failure_mode": "closed"}""");
        Fleet.awaitEverywhere(stack, "e2e.inflight", Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.shutdownNow();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void exactlyTheLimitIsInFlightAcrossTheFleetAndAnAbortedClientFreesItsSlot() throws Exception {
        release();
        String key = Fleet.freshKey("reporter");
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int gateway = i % 3;
            calls.add(CompletableFuture.supplyAsync(() -> hold(gateway, key, Duration.ofSeconds(60)), pool));
        }
        await("two held, four refused").atMost(Duration.ofSeconds(20))
                .until(() -> calls.stream().filter(CompletableFuture::isDone).count() == 4 && held() == 2);
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            if (call.isDone()) {
                HttpResponse<String> refused = call.get();
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
                assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                        .contains("qu=\"concurrent-requests\"");
            }
        }
        assertThat(held()).as("the backend holds exactly the limit").isEqualTo(2);
        release();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            assertThat(call.get(20, TimeUnit.SECONDS).statusCode()).isIn(200, 429);
        }
        await("both slots back").atMost(Duration.ofSeconds(10)).until(() -> remaining(0, key, HELD) == 2);

        // a client that gives up while its request is held: its slot comes back without waiting for the lease
        CompletableFuture<HttpResponse<String>> patient = CompletableFuture.supplyAsync(
                () -> hold(1, key, Duration.ofSeconds(60)), pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 1);
        try {
            hold(2, key, Duration.ofSeconds(1));
        } catch (IllegalStateException timedOut) {
            // the client gave up: what the test means to do
        }
        await("the aborted request's slot is free again").atMost(Duration.ofSeconds(5))
                .until(() -> remaining(0, key, HELD) == 1);
        release();
        assertThat(patient.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void exactlyTheLimitOfWebSocketsIsOpenAcrossTheFleetAndADroppedOneFreesItsSlotAtOnce() throws Exception {
        String key = Fleet.freshKey("chatter");
        Map<String, String> client = Map.of("X-API-Key", key);
        byte[] bytes = {0, 1, (byte) 0xfe, (byte) 0xff}; // not UTF-8: binary frames pass as they are
        try (ClientSocket first = ClientSocket.open(echo(0), client);
                ClientSocket second = ClientSocket.open(echo(1), client)) {
            for (ClientSocket socket : List.of(first, second)) {
                assertThat(socket.exchange("hello")).isEqualTo("hello");
                assertThat(socket.exchange(bytes)).containsExactly(bytes);
            }
            assertThat(remaining(0, key, ECHO)).as("two open sockets hold both slots").isZero();

            HttpResponse<?> refused = ClientSocket.refusal(echo(2), client);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(String.valueOf(refused.body())).contains("quota-exceeded");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(refused.headers().firstValue("RateLimit-Policy").orElseThrow())
                    .contains("qu=\"concurrent-requests\"");
            assertThat(stack.backendHits(key)).as("the refused upgrade never reaches the backend").isEqualTo(2);

            // a client whose connection drops without a close frame: its slot comes back long before its lease
            first.abort();
            try (ClientSocket third = await("the dropped socket's slot is free again").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsInstanceOf(ClientSocket.Refused.class)
                    .until(() -> ClientSocket.open(echo(2), client), Objects::nonNull)) {
                assertThat(third.exchange("again")).isEqualTo("again");
                assertThat(third.exchange(bytes)).containsExactly(bytes);
                assertThat(remaining(0, key, ECHO)).isZero();
                assertThat(second.closeNormally()).isEqualTo(1000);
                assertThat(third.closeNormally()).isEqualTo(1000);
            }
        }
        await("both slots back").atMost(Duration.ofSeconds(5)).until(() -> remaining(0, key, ECHO) == 2);
    }

    @Test
    @Order(3) // last: it kills a gateway
    void theSlotsOfAKilledGatewayComeBackWhenTheirLeaseEnds() throws Exception {
        release();
        String key = Fleet.freshKey("orphan");
        Map<String, String> client = Map.of("X-API-Key", key);
        CompletableFuture.runAsync(() -> {
            try {
                hold(2, key, Duration.ofSeconds(60));
            } catch (IllegalStateException cut) {
                // its gateway dies under it
            }
        }, pool);
        await().atMost(Duration.ofSeconds(10)).until(() -> held() == 1);
        try (ClientSocket socket = ClientSocket.open(echo(2), client)) {
            assertThat(socket.exchange("still here")).isEqualTo("still here");
            long killedAt = System.nanoTime();
            stack.gateways().get(2).kill();

            HttpResponse<String> refused = stack.call(0, "GET", "/orders", key);
            assertThat(refused.statusCode()).as("the dead gateway's leases still hold both slots").isEqualTo(429);
            assertThat(ClientSocket.refusal(echo(1), client).statusCode()).isEqualTo(429);
            await("the slots come back after the 10 s lease").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> stack.call(0, "GET", "/orders", key).statusCode() == 200);
            assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).as("not before the lease could end")
                    .isGreaterThan(Duration.ofSeconds(8));
            // each lease ends within its 10 s of the kill, the socket's as well as the request's
            await("both slots back").atMost(Duration.ofSeconds(20).minusNanos(System.nanoTime() - killedAt))
                    .until(() -> remaining(0, key, ECHO) == 2);
        }
    }

    private static String echo(int gateway) {
        return stack.gateways().get(gateway).url(ECHO);
    }

    private static HttpResponse<String> hold(int gateway, String key, Duration timeout) {
        return Http.send("GET", stack.gateways().get(gateway).url(HELD), Map.of("X-API-Key", key), null,
                timeout);
    }

    private static int held() throws Exception {
        return new ObjectMapper().readTree(Http.get(backendUrl("/__held"), Map.of()).body()).path("held").asInt();
    }

    private static void release() {
        Http.send("POST", backendUrl("/__release"), Map.of(), "");
    }

    private static String backendUrl(String path) {
        return stack.backendUrl(path);
    }

    private static long remaining(int gateway, String key, String path) throws Exception {
        var explained = stack.operation(gateway, "GET", "/tollgate/explain?path=" + path, key);
        assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
        return new ObjectMapper().readTree(explained.body()).path("rules").get(0).path("remaining").asLong();
    }
}
