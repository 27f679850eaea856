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

    /**
     * The quota ({@code q}) gateway {@code index} announces for rule {@code ruleId} on a GET of {@code path} now
     * (a fresh key's: what the rule gives any client), or -1 when it does not name the rule.
     */
    public static long quota(Stack stack, int index, String ruleId, String path) {
        var answer = stack.call(index, "GET", path, freshKey("probe"));
        String named = "\"" + ruleId + "\";q=";
        return answer.headers().allValues("RateLimit-Policy").stream()
                .filter(v -> v.startsWith(named))
                .mapToLong(v -> Long.parseLong(v.substring(named.length()).split(";")[0]))
                .findFirst().orElse(-1);
    }

    /** Waits until every live gateway announces quota {@code q} for the rule on a GET of {@code path}. */
    public static void awaitQuotaEverywhere(Stack stack, String ruleId, String path, long q, Duration atMost) {
        for (int i = 0; i < stack.gateways().size(); i++) {
            if (!stack.gateways().get(i).isAlive()) {
                continue;
            }
            int index = i;
            await(stack.gateways().get(i).name() + " announces q=" + q + " for " + ruleId).atMost(atMost)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> quota(stack, index, ruleId, path) == q);
        }
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
