package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/** No request reads the rules database: with the rules service dead, gateways go on, and start from their snapshot. */
class RulesServiceDownTest {

    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = Stack.start(2, Map.of("TOLLGATE_RULES_POLL_INTERVAL", "1s"));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void gatewaysKeepEnforcingAndARestartedGatewayServesFromItsSnapshot() {
        stack.putRule("e2e.snapshot", Rules.perApiKey("e2e.snapshot", 3, "1h", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.snapshot", Duration.ofSeconds(5));

        stack.rulesService().kill();

        String key = Fleet.freshKey("client");
        assertThat(statuses(key, 0, 5)).containsExactly(200, 200, 200, 429, 429);

        JavaService restarted = stack.gateways().get(1);
        restarted.kill();
        restarted.start().awaitReady();

        assertThat(Fleet.enforces(stack, 1, "e2e.snapshot")).as("the rule came from the snapshot").isTrue();
        // the bucket lives in Redis, not in the gateway: the restarted gateway sees it spent
        assertThat(statuses(key, 1, 2)).containsExactly(429, 429);
        assertThat(statuses(Fleet.freshKey("other"), 1, 4)).containsExactly(200, 200, 200, 429);
    }

    private static java.util.List<Integer> statuses(String key, int gateway, int count) {
        java.util.List<Integer> statuses = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            statuses.add(stack.call(gateway, "GET", "/snapshot/" + i, key).statusCode());
        }
        return statuses;
    }
}
