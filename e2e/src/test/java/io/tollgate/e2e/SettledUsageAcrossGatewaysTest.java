package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Stack;

/**
 * A rule with {@code settle} over three gateways on a Redis Cluster: LLM answers (JSON and streamed) charge the
 * tokens they used, wherever they passed, exactly, and a debt made on one gateway holds on the others.
 */
class SettledUsageAcrossGatewaysTest {

    private final Stack stack = SharedStack.get();

    @Test
    void answersThroughEveryGatewayAreChargedExactlyWhatTheyUsed() throws Exception {
        // one token an hour: what the bucket holds during the test is what was spent
        stack.putRule("e2e.tokens", """
                {"id": "e2e.tokens", "match": {"path": "/llm/tokens/**"}, "key": "api_key", "limit": 1, "period": "1h",
                 "burst": 100000, "cost": 1000, "unit": "tokens", "failure_mode": "closed",
                 "settle": {"from": "json:/usage/total_tokens"}}""");
        Fleet.awaitEverywhere(stack, "e2e.tokens", "/llm/tokens/probe", Duration.ofSeconds(10));
        String key = Fleet.freshKey("llm");

        ExecutorService pool = Executors.newFixedThreadPool(12);
        long used = 0;
        try {
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                int gateway = i % 3;
                long tokens = 100 + 37L * i; // under and over the reservation of 1,000
                used += tokens;
                String query = "?tokens=" + tokens + (i % 2 == 0 ? "&stream=true" : "");
                calls.add(CompletableFuture.supplyAsync(
                        () -> stack.call(gateway, "POST", "/llm/tokens/v1/chat/completions" + query, key).statusCode(), pool));
            }
            for (CompletableFuture<Integer> call : calls) {
                assertThat(call.get()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }
        long expected = 100_000 - used;
        for (int i = 0; i < 3; i++) {
            int gateway = i;
            await("gateway " + i + " sees the settled total").atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(remaining(gateway, key)).isEqualTo(expected));
        }
    }

    @Test
    void aDebtMadeOnOneGatewayHoldsOnTheOthers() throws Exception {
        stack.putRule("e2e.debt", """
                {"id": "e2e.debt", "match": {"path": "/llm/debt/**"}, "key": "api_key", "limit": 1, "period": "1h",
                 "burst": 1000, "cost": 100, "unit": "tokens", "failure_mode": "closed",
                 "settle": {"from": "json:/usage/total_tokens"}}""");
        Fleet.awaitEverywhere(stack, "e2e.debt", "/llm/debt/probe", Duration.ofSeconds(10));
        String key = Fleet.freshKey("debtor");
        assertThat(stack.call(0, "POST", "/llm/debt/v1/chat/completions?tokens=1500&stream=true", key).statusCode())
                .isEqualTo(200);
        for (int i = 1; i < 3; i++) {
            int gateway = i;
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                var answer = stack.call(gateway, "POST", "/llm/debt/v1/chat/completions", key);
                assertThat(answer.statusCode()).isEqualTo(429);
                assertThat(new ObjectMapper().readTree(answer.body()).path("owed").path("e2e.debt").asLong())
                        .isEqualTo(500);
            });
        }
        assertThat(stack.backendHits(key)).as("only the first request reached the backend").isEqualTo(1);
    }

    private long remaining(int gateway, String key) throws Exception {
        var explained = stack.operation(gateway, "GET", "/tollgate/explain?path=/llm/tokens/x&method=POST", key);
        assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
        return new ObjectMapper().readTree(explained.body()).path("rules").get(0).path("remaining").asLong();
    }
}
