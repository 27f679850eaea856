package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

/** What the tests ask of a running stack, in terms of what clients see. */
public final class Fleet {

    private Fleet() {
    }

    public static String freshKey(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Whether gateway {@code index} applies rule {@code ruleId} now (it names it in RateLimit-Policy). */
    public static boolean enforces(Stack stack, int index, String ruleId) {
        return enforces(stack, index, ruleId, "/probe");
    }

    /** Whether gateway {@code index} applies rule {@code ruleId} to a GET of {@code path} now. */
    public static boolean enforces(Stack stack, int index, String ruleId, String path) {
        var answer = stack.call(index, "GET", path, freshKey("probe"));
        return answer.headers().allValues("RateLimit-Policy").stream().anyMatch(v -> v.contains("\"" + ruleId + "\""));
    }

    /** Waits until every live gateway applies the rule to a GET of {@code path}. */
    public static void awaitEverywhere(Stack stack, String ruleId, String path, Duration atMost) {
        for (int i = 0; i < stack.gateways().size(); i++) {
            if (!stack.gateways().get(i).isAlive()) {
                continue;
            }
            int index = i;
            await(stack.gateways().get(i).name() + " applies " + ruleId).atMost(atMost).pollInterval(Duration.ofMillis(20))
                    .until(() -> enforces(stack, index, ruleId, path));
        }
    }

    /** Waits until every live gateway applies the rule (to a GET of /probe). */
    public static void awaitEverywhere(Stack stack, String ruleId, Duration atMost) {
        awaitEverywhere(stack, ruleId, "/probe", atMost);
    }
}
