package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * Parts die in turn, on one stack of three gateways: a gateway (the others carry on, and the live count the
 * local fallback divides by follows), then all of Redis (each failure mode within the store timeout), then
 * Redis returns (shared limiting resumes). The steps build on each other, so they run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailureModesTest {

    /** The store timeout this test gives the gateways, plus 100 ms for everything else. */
    private static final long ANSWER_WITHIN_MS = 20 + 100;
    /**
     * The first fallback answer of each kind in a gateway runs code no request has run before (class loading,
     * interpretation); it gets a second, and is reported. Every later answer must come within the bound.
     */
    private static final long FIRST_ANSWER_WITHIN_MS = 1000;
    private static final java.util.Set<String> answeredOnce = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private static final Logger LOG = Logger.getLogger(FailureModesTest.class);

    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = Stack.start(3, Map.of("TOLLGATE_RULES_POLL_INTERVAL", "1s", "TOLLGATE_STORE_TIMEOUT", "20ms"));
        stack.putRule("e2e.open", Rules.perApiKey("e2e.open", "/open/**", 2, "1h", "open"));
        stack.putRule("e2e.closed", Rules.perApiKey("e2e.closed", "/closed/**", 4, "1h", "closed"));
        stack.putRule("e2e.local", Rules.perApiKey("e2e.local", "/local/**", 6, "1h", "local"));
        for (String mode : List.of("open", "closed", "local")) {
            Fleet.awaitEverywhere(stack, "e2e." + mode, "/" + mode + "/probe", Duration.ofSeconds(5));
        }
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void aKilledGatewayLeavesTheOthersServingAndTheLiveCountFollows() {
        assertThat(liveGateways()).isEqualTo(3);
        stack.gateways().get(2).kill();
        assertThat(stack.call(0, "GET", "/anything", Fleet.freshKey("k")).statusCode()).isEqualTo(200);
        assertThat(stack.call(1, "GET", "/anything", Fleet.freshKey("k")).statusCode()).isEqualTo(200);
        // the rules service forgets a gateway once it has not polled for its live window (10 s in this stack)
        await("live gateways drop to 2").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> liveGateways() == 2);
    }

    @Test
    @Order(2)
    void withRedisDeadEachFailureModeAnswersWithinTheStoreTimeout() {
        stack.redis().killAll();

        for (int gateway = 0; gateway < 2; gateway++) {
            String key = Fleet.freshKey("dead-redis");
            for (int i = 0; i < 5; i++) {
                assertThat(timed(gateway, "/open/" + i, key).statusCode()).as("open allows").isEqualTo(200);
                HttpResponse<String> closed = timed(gateway, "/closed/" + i, key);
                assertThat(closed.statusCode()).as("closed rejects").isEqualTo(503);
                assertThat(closed.headers().firstValue("Content-Type")).hasValueSatisfying(
                        type -> assertThat(type).startsWith("application/problem+json"));
            }
        }
        // local: the rule's limit of 6 divided by the 2 live gateways, in each gateway's own memory. A gateway
        // learns the live count from its next poll (every second here): a fresh key per try, until it shows.
        for (int gateway = 0; gateway < 2; gateway++) {
            int index = gateway;
            await("gateway " + gateway + " shares the local limit among 2").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        String key = Fleet.freshKey("local");
                        List<Integer> statuses = new ArrayList<>();
                        for (int i = 0; i < 5; i++) {
                            statuses.add(timed(index, "/local/" + i, key).statusCode());
                        }
                        return statuses.equals(List.of(200, 200, 200, 429, 429));
                    });
        }
    }

    @Test
    @Order(3)
    void sharedLimitingResumesWhenRedisReturns() {
        stack.redis().restartAll();
        String key = Fleet.freshKey("back");
        for (int gateway = 0; gateway < 2; gateway++) {
            int index = gateway;
            // each gateway's breaker lets a probe through after its open-for (1 s) and closes on its success
            await("gateway " + gateway + " reaches the store again").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> stack.call(index, "GET", "/closed/probe", Fleet.freshKey("probe")).statusCode() == 200);
        }

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(stack.call(i % 2, "GET", "/closed/" + i, key).statusCode());
        }
        assertThat(statuses).as("one shared bucket of 4 across both gateways").containsExactly(200, 200, 200, 200, 429, 429);
    }

    private static HttpResponse<String> timed(int gateway, String path, String key) {
        long started = System.nanoTime();
        HttpResponse<String> answer = stack.call(gateway, "GET", path, key);
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        String kind = gateway + " " + path.substring(0, path.indexOf('/', 1)) + " " + answer.statusCode();
        boolean first = answeredOnce.add(kind);
        if (first) {
            LOG.infof("first %s answer of gateway %d: %d in %d ms", path, gateway, answer.statusCode(), tookMs);
        }
        assertThat(tookMs).as("GET %s on gateway %d took %d ms", path, gateway, tookMs)
                .isLessThanOrEqualTo(first ? FIRST_ANSWER_WITHIN_MS : ANSWER_WITHIN_MS);
        return answer;
    }

    private static int liveGateways() {
        return Integer.parseInt(Http.get(stack.rulesService().url("/api/v1/rules"), Stack.ADMIN)
                .headers().firstValue("Tollgate-Gateways").orElse("-1"));
    }
}
