package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Metrics;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * The rules service's live view (docs/management.md) over two packaged gateways: they appear in
 * {@code /api/v1/gateways} with the version they hold and their management address; a flood past a rule's limit
 * shows in {@code /api/v1/live} as the gateways counted it and in {@code /api/v1/top}; explain through the rules
 * service spends nothing; a poll with a wrong token gives no address; every call needs the token. A stack of its
 * own: its gateways poll every 2 s, so they stay live within the stack's 10 s live window.
 */
class OperationsApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADMIN = "Bearer " + Stack.ADMIN_TOKEN;
    /** Two steps of the sampler (10 s) and a poll, with room for a crowded machine. */
    private static final Duration SAMPLED = Duration.ofSeconds(60);

    @AutoClose
    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = Stack.start(2, Map.of("TOLLGATE_RULES_POLL_INTERVAL", "2s"));
    }

    @Test
    void gatewaysAppearWithTheVersionTheyHoldAndTheirManagementAddress() {
        long version = stack.putRule("ops.version", Rules.perApiKey("ops.version", "/ops-version/**", 5, "1m", "open"));
        Fleet.awaitEverywhere(stack, "ops.version", "/ops-version/a", Duration.ofSeconds(30));

        await("both gateways hold version " + version).atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode gateways = api("/api/v1/gateways").path("gateways");
            for (var gateway : stack.gateways()) {
                JsonNode listed = find(gateways, gateway.name());
                assertThat(listed.isMissingNode()).as(gateway.name() + " listed").isFalse();
                assertThat(listed.path("rules_version").asLong()).isGreaterThanOrEqualTo(version);
                assertThat(listed.path("live").asBoolean()).isTrue();
                assertThat(listed.path("admin_url").asText()).isEqualTo(gateway.managementUrl(""));
                assertThat(listed.path("last_seen").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
            }
        });
    }

    @Test
    void aFloodPastTheLimitShowsInLiveAndTop() throws Exception {
        String rule = "ops.flood";
        String path = "/ops-flood/x";
        // every gateway read once before the rule decides anything: the first read is the baseline, and what the
        // gateways count of the rule from there on is the live view's
        await("every gateway read").atMost(SAMPLED).until(() -> {
            JsonNode gateways = api("/api/v1/live").path("gateways");
            return stack.gateways().stream().allMatch(g -> find(gateways, g.name()).path("reachable").asBoolean());
        });
        stack.putRule(rule, Rules.perApiKey(rule, "/ops-flood/**", 5, "1m", "open"));
        Fleet.awaitEverywhere(stack, rule, path, Duration.ofSeconds(30));
        String key = Fleet.freshKey("ops-flood");
        long rejected = 0;
        for (int i = 0; i < 30; i++) {
            if (stack.call(i % 2, "GET", path, key).statusCode() == 429) {
                rejected++;
            }
        }
        assertThat(rejected).isGreaterThanOrEqualTo(20);

        List<Metrics> counted = Metrics.ofEach(stack.gateways());
        double allowed = total(counted, rule, "allowed") + total(counted, rule, "leased");
        double stopped = total(counted, rule, "rejected") + total(counted, rule, "cached_rejected");
        await("the live view counts what the gateways counted").atMost(SAMPLED).untilAsserted(() -> {
            JsonNode live = api("/api/v1/live");
            assertThat(live.path("step_ms").asLong()).isEqualTo(10_000);
            JsonNode totals = find(live.path("rules"), rule).path("totals");
            assertThat(totals.path("allowed").asDouble()).isEqualTo(allowed);
            assertThat(totals.path("rejected").asDouble()).isEqualTo(stopped);
            assertThat(totals.path("fallback").asLong()).isZero();
            for (var gateway : stack.gateways()) {
                JsonNode health = find(live.path("gateways"), gateway.name());
                assertThat(health.path("store").asText()).isEqualTo("up");
                assertThat(health.path("breaker").asText()).isEqualTo("closed");
            }
        });
        long finalRejected = rejected;
        JsonNode top = api("/api/v1/top?rule=" + rule + "&n=5");
        assertThat(top.path("rule").asText()).isEqualTo(rule);
        JsonNode heaviest = top.path("clients").path(0);
        assertThat(heaviest.path("client").asText()).isEqualTo(sha256(key));
        assertThat(heaviest.path("rejections").asLong()).isEqualTo(finalRejected);
    }

    @Test
    void explainThroughTheRulesServiceShowsRemainingWithoutSpending() {
        String rule = "ops.explain";
        stack.putRule(rule, Rules.perApiKey(rule, "/ops-explain/**", 10, "1m", "open"));
        Fleet.awaitEverywhere(stack, rule, "/ops-explain/a", Duration.ofSeconds(30));
        String key = Fleet.freshKey("ops-explain");
        for (int i = 0; i < 3; i++) {
            assertThat(stack.call(0, "GET", "/ops-explain/a", key).statusCode()).isEqualTo(200);
        }
        String query = "/api/v1/explain?method=GET&path=/ops-explain/a";
        await("a gateway's address known").atMost(SAMPLED).until(() -> call(query, key).statusCode() == 200);

        // the key travels in the header the gateways count it by, never in a URL
        JsonNode first = api(query, key);
        JsonNode second = api(query, key);
        assertThat(first.path("gateway").asText()).isIn("gateway-1", "gateway-2");
        long remaining = find(first.path("rules"), rule).path("remaining").asLong();
        assertThat(remaining).isBetween(0L, 7L);
        assertThat(find(second.path("rules"), rule).path("remaining").asLong()).isEqualTo(remaining);
        assertThat(api(query).path("rules").toString()).contains("\"missing\":\"X-API-Key\"");
        HttpResponse<String> inUrl = call(query + "&api_key=" + key);
        assertThat(inUrl.statusCode()).isEqualTo(400);
        assertThat(inUrl.body()).contains("key-in-url").doesNotContain(key);
    }

    @Test
    void aPollWithAWrongTokenOrNoneRegistersNothingAndAnAddressElsewhereIsNotTaken() {
        String rules = stack.rulesService().url("/api/v1/rules");
        Http.get(rules, Map.of("Tollgate-Gateway", "ops-impostor", "Tollgate-Gateway-Admin", "http://127.0.0.1:1",
                "Authorization", "Bearer guessed"));
        Http.get(rules, Map.of("Tollgate-Gateway", "ops-anonymous", "Tollgate-Gateway-Admin", "http://127.0.0.1:1"));
        Http.get(rules, Map.of("Tollgate-Gateway", "ops-elsewhere", "Tollgate-Gateway-Admin", "http://10.255.0.1:9000",
                "Authorization", "Bearer " + Stack.ADMIN_TOKEN));
        // the registry is written after the answer: once the last poll shows, the first two would have too
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                find(api("/api/v1/gateways").path("gateways"), "ops-elsewhere").isMissingNode()).isFalse());
        JsonNode gateways = api("/api/v1/gateways").path("gateways");
        assertThat(find(gateways, "ops-elsewhere").path("admin_url").isNull()).isTrue();
        assertThat(find(gateways, "ops-impostor").isMissingNode()).isTrue();
        assertThat(find(gateways, "ops-anonymous").isMissingNode()).isTrue();
    }

    @Test
    void everyCallAnswers401WithoutTheToken() {
        for (String path : List.of("/api/v1/gateways", "/api/v1/live", "/api/v1/top?rule=ops.flood",
                "/api/v1/explain?path=/x")) {
            HttpResponse<String> answer = Http.get(stack.rulesService().url(path), Map.of());
            assertThat(answer.statusCode()).as(path).isEqualTo(401);
            assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
        }
    }

    private static double total(List<Metrics> gateways, String rule, String outcome) {
        return gateways.stream().mapToDouble(m -> m.sum("tollgate_decisions_total", "rule=" + rule,
                "outcome=" + outcome)).sum();
    }

    private static HttpResponse<String> call(String path) {
        return Http.get(stack.rulesService().url(path), Map.of("Authorization", ADMIN));
    }

    /** A call with {@code apiKey} in the header a gateway counts it by. */
    private static HttpResponse<String> call(String path, String apiKey) {
        return Http.get(stack.rulesService().url(path), Map.of("Authorization", ADMIN, "X-API-Key", apiKey));
    }

    private static JsonNode api(String path) {
        return api(path, null);
    }

    private static JsonNode api(String path, String apiKey) {
        HttpResponse<String> answer = apiKey == null ? call(path) : call(path, apiKey);
        assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
        try {
            return JSON.readTree(answer.body());
        } catch (Exception e) {
            throw new IllegalStateException("not JSON: " + answer.body(), e);
        }
    }

    /** The element of {@code array} whose {@code id} is {@code id}, or a missing node. */
    private static JsonNode find(JsonNode array, String id) {
        for (JsonNode element : array) {
            if (id.equals(element.path("id").asText())) {
                return element;
            }
        }
        return MissingNode.getInstance();
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
