package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/** The lesson's promise: one limit for the whole fleet, however many gateways share the traffic. */
class ExactnessAcrossGatewaysTest {

    private final Stack stack = SharedStack.get();

    @Test
    void oneKeySpreadOverThreeGatewaysGetsTheLimitAndNoMore() {
        // paths of its own: the stack is shared with other tests' rules and keys
        stack.putRule("e2e.exact", Rules.perApiKey("e2e.exact", "/exact/**", 30, "1h", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.exact", "/exact/probe", Duration.ofSeconds(5));
        String key = Fleet.freshKey("partner");

        long started = System.nanoTime();
        int allowed = 0;
        int rejected = 0;
        for (int i = 0; i < 120; i++) {
            int status = stack.call(i % 3, "GET", "/exact/" + i, key).statusCode();
            if (status == 200) {
                allowed++;
            } else {
                assertThat(status).as("request " + i).isEqualTo(429);
                rejected++;
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        // 30 an hour refills one token every 120 s: the run may earn at most what its duration refilled.
        long refilled = (long) Math.floor(seconds * 30 / 3600.0);

        assertThat(allowed).isBetween(30, 30 + (int) refilled);
        assertThat(rejected).isEqualTo(120 - allowed);
        assertThat(stack.backendHits(key)).as("the backend saw exactly the allowed requests").isEqualTo(allowed);
    }

    @Test
    void sixtyConcurrentRequestsOnOneTokenAcrossGatewaysLetExactlyOneThrough() throws Exception {
        stack.putRule("e2e.race", Rules.perApiKey("e2e.race", "/race/**", 1, "1h", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.race", "/race/probe", Duration.ofSeconds(5));
        String key = Fleet.freshKey("racer");

        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(60);
        try {
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                int gateway = i % 3;
                calls.add(CompletableFuture.runAsync(() -> {
                    statuses.merge(stack.call(gateway, "POST", "/race/go", key).statusCode(), 1, Integer::sum);
                }, pool));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(statuses).as("answers by status").containsExactlyInAnyOrderEntriesOf(Map.of(200, 1, 429, 59));
        assertThat(stack.backendHits(key)).isEqualTo(1);
    }
}
