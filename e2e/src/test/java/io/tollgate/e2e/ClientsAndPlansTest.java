package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Directory;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Stack;

/**
 * Plans, overrides and tenants across three packaged gateways on a Redis Cluster, written through the packaged
 * rules service's directory API: each client gets its own limit, changes reach every gateway within a second
 * (within the poll interval with the watch stream cut), a tenant's clients share its budget, and a million
 * clients imported in one request are enforced with their plans. On the shared stack: its rules match paths no
 * other test's rule matches, its clients have fresh keys, and it restores the watch stream it cuts.
 */
class ClientsAndPlansTest {

    private static final Logger LOG = Logger.getLogger(ClientsAndPlansTest.class);
    private static final Duration POLL = SharedStack.POLL;
    private static final String PLANS = "e2e.plans";
    private static final String TENANT = "e2e.tenant";
    private static final String TENANT_CLIENT = "e2e.tenant.client";
    private static final int BULK = Integer.getInteger("e2e.bulk-clients", 1_000_000);

    private static Stack stack;
    private static Directory directory;

    @BeforeAll
    static void start() {
        stack = SharedStack.get();
        directory = new Directory(stack);
        stack.putRule(PLANS, """
                {"id": "e2e.plans", "match": {"path": "/plans/**"}, "key": "api_key", "limit": 3, "period": "1h",
                 "failure_mode": "closed",
                 "plans": {"free": {"limit": 1}, "pro": {"limit": 6}, "blocked": {"limit": 0}}}""");
        stack.putRule(TENANT, """
                {"id": "e2e.tenant", "match": {"path": "/tenanted/**"}, "key": "tenant", "limit": 4, "period": "1h",
                 "failure_mode": "closed", "plans": {"blocked": {"limit": 0}}}""");
        stack.putRule(TENANT_CLIENT, """
                {"id": "e2e.tenant.client", "match": {"path": "/tenanted/**"}, "key": "api_key", "limit": 3,
                 "period": "1h", "failure_mode": "closed"}""");
        Fleet.awaitEverywhere(stack, PLANS, "/plans/probe", Duration.ofSeconds(5));
        Fleet.awaitEverywhere(stack, TENANT_CLIENT, "/tenanted/probe", Duration.ofSeconds(5));
    }

    @Test
    void aFreeClientGetsTheFreeLimitAProClientTheProLimitAnUnknownKeyTheRules() throws Exception {
        String free = Fleet.freshKey("free");
        String pro = Fleet.freshKey("pro");
        String unknown = Fleet.freshKey("unknown");
        directory.putClient(free, "{\"plan\": \"free\", \"label\": \"a free client\"}");
        directory.putClient(pro, "{\"plan\": \"pro\"}");
        directory.awaitEverywhere(PLANS, "/plans/probe", "blocked", Duration.ofSeconds(5));

        assertThat(allowed(free, "/plans/x", 10)).as("free: 1 an hour").isEqualTo(1);
        assertThat(allowed(pro, "/plans/x", 10)).as("pro: 6 an hour").isEqualTo(6);
        assertThat(allowed(unknown, "/plans/x", 10)).as("unknown key: the rule's 3 an hour").isEqualTo(3);
        // the clients a gateway rejected most, by digest, named by the directory's labels
        var top = stack.operation(0, "GET", "/tollgate/top?rule=" + PLANS + "&n=20");
        assertThat(top.statusCode()).as(top.body()).isEqualTo(200);
        assertThat(top.body()).contains("{\"digest\":\"" + sha256(free) + "\",\"label\":\"a free client\"")
                .doesNotContain(free);
        var answer = stack.call(0, "GET", "/plans/x", Fleet.freshKey("pro-policy"));
        assertThat(answer.headers().firstValue("RateLimit-Policy")).hasValue("\"e2e.plans\";q=3;w=3600");
        directory.putClient("pro-policy-key", "{\"plan\": \"pro\"}");
        directory.awaitEverywhere(PLANS, "/plans/probe", "blocked", Duration.ofSeconds(5));
        assertThat(stack.call(1, "GET", "/plans/x", "pro-policy-key").headers().firstValue("RateLimit-Policy"))
                .as("the effective policy in the headers").hasValue("\"e2e.plans\";q=6;w=3600");
    }

    @Test
    void anOverrideAndItsRemovalReachEveryGatewayWithinASecondAndWithinThePollWithTheWatchCut() {
        String client = Fleet.freshKey("override");
        directory.putClient(client, "{}");
        overrideReachesEveryone(client, Duration.ofSeconds(1), "watch");

        stack.watchCutter().cut(true);
        try {
            String cut = Fleet.freshKey("override-cut");
            directory.putClient(cut, "{}");
            // the change waits for the next poll: one interval, plus that poll's own fetch and page on a machine
            // shared by ten processes
            overrideReachesEveryone(cut, POLL.plusSeconds(1), "poll");
        } finally {
            stack.watchCutter().cut(false);
        }
    }

    /**
     * Blocks {@code client} by an override, then lifts it: every gateway follows each change within {@code bound},
     * seen in the policy each answer reports (a blocked answer spends nothing; the polls before the override
     * arrives may spend the client's own limit, so its removal shows as the rule's own policy, not as a 200).
     */
    private static void overrideReachesEveryone(String client, Duration bound, String how) {
        long written = System.nanoTime();
        directory.putClient(client, "{\"overrides\": {\"e2e.plans\": {\"limit\": 0}}}");
        everyGatewayReports(client, "\"e2e.plans\";q=0;w=3600", bound);
        LOG.infof("%s: an override reached every gateway %d ms after the write", how, sinceMs(written));

        written = System.nanoTime();
        directory.putClient(client, "{}");
        everyGatewayReports(client, "\"e2e.plans\";q=3;w=3600", bound);
        LOG.infof("%s: its removal reached every gateway %d ms after the write", how, sinceMs(written));
    }

    @Test
    void twoClientsOfATenantShareItsBudgetAndARejectionByTheTenantSpendsNothingOfTheClients() throws Exception {
        String tenant = "acme-" + Fleet.freshKey("t").substring(2);
        directory.putTenant(tenant, "{\"label\": \"Acme\"}");
        String first = Fleet.freshKey("acme-1");
        String second = Fleet.freshKey("acme-2");
        directory.putClient(first, "{\"tenant\": \"" + tenant + "\"}");
        directory.putClient(second, "{\"tenant\": \"" + tenant + "\"}");
        directory.awaitEverywhere(PLANS, "/plans/probe", "blocked", Duration.ofSeconds(5));

        // the tenant holds 4 an hour, each client 3: the first takes 3, the second 1, then the tenant is empty
        assertThat(allowed(first, "/tenanted/x", 3)).isEqualTo(3);
        assertThat(allowed(second, "/tenanted/x", 5)).as("the second client: what the tenant has left").isEqualTo(1);
        var rejected = stack.call(2, "GET", "/tenanted/x", second);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains(TENANT).doesNotContain(TENANT_CLIENT);
        // a client of another tenant (a tenant of its own) is not touched
        assertThat(allowed(Fleet.freshKey("other"), "/tenanted/x", 3)).isEqualTo(3);

        // the rejections by the tenant rule spent nothing of the second client's own 3: 2 are left, on every gateway
        for (int i = 0; i < stack.gateways().size(); i++) {
            var explained = stack.operation(i, "GET", "/tollgate/explain?path=/tenanted/x", second);
            assertThat(explained.statusCode()).as(explained.body()).isEqualTo(200);
            var rules = new com.fasterxml.jackson.databind.ObjectMapper().readTree(explained.body()).get("rules");
            assertThat(rules.get(0).get("id").asText()).isEqualTo(TENANT);
            assertThat(rules.get(0).get("remaining").asLong()).as("the tenant's bucket").isZero();
            assertThat(rules.get(0).get("key").asText()).isEqualTo("rl:e2e.tenant:{" + tenant + "}:@");
            assertThat(rules.get(1).get("id").asText()).isEqualTo(TENANT_CLIENT);
            assertThat(rules.get(1).get("remaining").asLong()).as("the second client's own bucket").isEqualTo(2);
        }
    }

    @Test
    void aMillionClientsImportedAtOnceAreEnforcedWithTheirPlansAndABadLineOrADryRunChangesNothing() {
        String prefix = Fleet.freshKey("bulk");
        String[] plans = {"free", "pro", null};
        String lines = IntStream.range(0, BULK)
                .mapToObj(i -> plans[i % 3] == null
                        ? "{\"key\": \"" + prefix + "-" + i + "\"}"
                        : "{\"key\": \"" + prefix + "-" + i + "\", \"plan\": \"" + plans[i % 3] + "\"}")
                .collect(Collectors.joining("\n", "", "\n"));

        // the dry run and the refused import read the first 10,000 lines: what they prove needs no more
        String head = lines.substring(0, nthLineEnd(lines, 10_000) + 1);
        var dry = directory.importClients(head, true);
        assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
        assertThat(directory.client(prefix + "-1").statusCode()).as("after the dry run").isEqualTo(404);

        String bad = head.replace("{\"key\": \"" + prefix + "-7\", \"plan\": \"pro\"}",
                "{\"key\": \"" + prefix + "-7\", \"plan\": \"platinum\"}");
        var refused = directory.importClients(bad, false);
        assertThat(refused.statusCode()).isEqualTo(422);
        assertThat(refused.body()).contains("platinum").contains("8"); // line 8 names the bad plan
        assertThat(directory.client(prefix + "-1").statusCode()).as("after the refused import").isEqualTo(404);

        long started = System.nanoTime();
        var imported = directory.importClients(lines, false);
        assertThat(imported.statusCode()).as(imported.body()).isEqualTo(200);
        long importMs = sinceMs(started);
        // each of the three gateways reads the million changes in 100 pages, all on these two cores
        directory.awaitEverywhere(PLANS, "/plans/probe", "blocked", Duration.ofSeconds(150));
        LOG.infof("bulk: %d clients imported in %d ms, known to every gateway %d ms after the import began", BULK,
                importMs, sinceMs(started));

        Random random = new Random(20);
        for (int n = 0; n < 30; n++) {
            int i = random.nextInt(BULK);
            long expected = plans[i % 3] == null ? 3 : plans[i % 3].equals("free") ? 1 : 6;
            assertThat(allowed(prefix + "-" + i, "/plans/x", 8)).as("bulk client %d on %s", i, plans[i % 3])
                    .isEqualTo(expected);
        }
    }

    @Test
    void theRawApiKeyAppearsInNoAnswerNorLogOfTheRulesService() {
        String secret = Fleet.freshKey("raw-secret-key");
        directory.putClient(secret, "{\"plan\": \"pro\", \"label\": \"secret holder\"}");
        directory.putClient(secret, "{\"plan\": \"free\", \"label\": \"secret holder\"}");
        List<String> answers = List.of(
                directory.client(secret).body(),
                stack.rulesService() == null
                        ? ""
                        : directory.history(secret).body(),
                io.tollgate.e2e.support.Http.get(stack.rulesService().url("/api/v1/clients"), Stack.ADMIN).body());
        assertThat(answers).allSatisfy(body -> assertThat(body).doesNotContain(secret));
        assertThat(answers.get(0)).contains("secret holder");
        assertThat(stack.rulesService().logText()).doesNotContain(secret);
    }

    /** How many of {@code n} requests of {@code apiKey}, spread over the gateways, were let through. */
    private static long allowed(String apiKey, String path, int n) {
        long ok = 0;
        for (int i = 0; i < n; i++) {
            int status = stack.call(i % stack.gateways().size(), "GET", path, apiKey).statusCode();
            assertThat(status).as("answer %d of %s", i, apiKey).isIn(200, 429);
            ok += status == 200 ? 1 : 0;
        }
        return ok;
    }

    private static void everyGatewayReports(String apiKey, String policy, Duration bound) {
        for (int i = 0; i < stack.gateways().size(); i++) {
            int index = i;
            org.awaitility.Awaitility.await(stack.gateways().get(i).name() + " reports " + policy + " to " + apiKey)
                    .atMost(bound)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> policy.equals(stack.call(index, "GET", "/plans/x", apiKey).headers()
                            .firstValue("RateLimit-Policy").orElse("")));
        }
    }

    /** The index of the {@code n}th newline of {@code text}. */
    private static int nthLineEnd(String text, int n) {
        int at = -1;
        for (int i = 0; i < n; i++) {
            at = text.indexOf('\n', at + 1);
        }
        return at;
    }

    private static String sha256(String key) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static long sinceMs(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
