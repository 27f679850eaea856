package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * The client directory of a running stack, through the rules service's API as an operator uses it: clients and
 * tenants written one at a time or imported in bulk, and a wait until every gateway applies what was written.
 */
public final class Directory {

    private final Stack stack;

    public Directory(Stack stack) {
        this.stack = stack;
    }

    /** Creates or replaces the entry of the client with API key {@code apiKey}. */
    public void putClient(String apiKey, String entryJson) {
        expectWritten(Http.send("PUT", stack.rulesService().url("/api/v1/clients/key"),
                Map.of("Authorization", "Bearer " + Stack.ADMIN_TOKEN, "Content-Type", "application/json",
                        "X-API-Key", apiKey),
                entryJson), apiKey);
    }

    public void putTenant(String id, String entryJson) {
        expectWritten(write("PUT", "/api/v1/tenants/" + id, "application/json", entryJson), "tenant " + id);
    }

    /** A bulk import: one client per line; {@code dryRun} only checks. The answer as the service gave it. */
    public HttpResponse<String> importClients(String ndjson, boolean dryRun) {
        return Http.send("PUT", stack.rulesService().url("/api/v1/clients" + (dryRun ? "?dry_run=true" : "")),
                Map.of("Authorization", "Bearer " + Stack.ADMIN_TOKEN, "Content-Type", "application/x-ndjson"),
                ndjson, Duration.ofMinutes(3));
    }

    /** The client's entry as the service answers it (404 when there is none); the key in its header. */
    public HttpResponse<String> client(String apiKey) {
        return Http.get(stack.rulesService().url("/api/v1/clients/key"), byKey(apiKey));
    }

    /** The client's history as the service answers it; the key in its header. */
    public HttpResponse<String> history(String apiKey) {
        return Http.get(stack.rulesService().url("/api/v1/clients/key/history"), byKey(apiKey));
    }

    private static Map<String, String> byKey(String apiKey) {
        return Map.of("Authorization", "Bearer " + Stack.ADMIN_TOKEN, "X-API-Key", apiKey);
    }

    /**
     * Waits until every gateway knows every directory change written so far: a fresh client on plan
     * {@code blockedPlan} (a plan of {@code ruleId} with limit 0) is written last, and each gateway must reject it
     * on {@code path} by that plan ({@link #blocked}), not merely with a 429 once the probes spent the rule's own
     * limit. Changes are applied in order, so that one being known means every
     * earlier one is.
     */
    public void awaitEverywhere(String ruleId, String path, String blockedPlan, Duration atMost) {
        String probe = Fleet.freshKey("dir-probe");
        putClient(probe, "{\"plan\": \"" + blockedPlan + "\"}");
        for (int i = 0; i < stack.gateways().size(); i++) {
            int index = i;
            await(stack.gateways().get(i).name() + " knows client " + probe + " of " + ruleId)
                    .atMost(atMost)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> blocked(stack.call(index, "GET", path, probe)));
        }
    }

    /**
     * Whether {@code answer} is a rejection by a policy of limit 0 (its {@code RateLimit-Policy} says
     * {@code q=0}): a plan or override the gateway applied, never a bucket the probing itself emptied.
     */
    public static boolean blocked(HttpResponse<String> answer) {
        return answer.statusCode() == 429
                && answer.headers().firstValue("RateLimit-Policy").orElse("").contains(";q=0;");
    }

    private HttpResponse<String> write(String method, String path, String type, String body) {
        return Http.send(method, stack.rulesService().url(path),
                Map.of("Authorization", "Bearer " + Stack.ADMIN_TOKEN, "Content-Type", type), body);
    }

    private static void expectWritten(HttpResponse<String> answer, String what) {
        if (answer.statusCode() != 200 && answer.statusCode() != 201) {
            throw new IllegalStateException("PUT " + what + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }
}
