package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A stranger on the gateways' own address (127.0.0.1: one host, as one NAT or one egress proxy would be) sends wrong
 * tokens until the rules service throttles them; the gateways' polls, which come from that address with the right
 * token, are still served, so a rule change reaches every gateway within a second, and the operator's admin token
 * still reads. A first change, before the wrong tokens, warms the stack's paths unhurried. On the shared stack: its
 * gateways poll with the admin token, and no other test of it sends a wrong token.
 */
class WrongTokensTest {

    private static final Logger LOG = Logger.getLogger(WrongTokensTest.class);
    private static final int WRONG_TOKENS = 30;

    @Test
    void aStrangersWrongTokensFromTheGatewaysAddressDelayNoRuleChange() {
        Stack stack = SharedStack.get();
        String rules = stack.rulesService().url("/api/v1/rules");
        // a first change, unhurried: a stack just started (cold JVMs on a crowded machine) is not what is measured
        String warm = "e2e.strangers-warm-" + Fleet.freshKey("rule").substring(5);
        stack.putRule(warm, Rules.perApiKey(warm, "/strangers-warm/**", 5, "1m", "closed"));
        Fleet.awaitEverywhere(stack, warm, "/strangers-warm/probe", Duration.ofSeconds(30));

        List<Integer> refused = new ArrayList<>();
        for (int i = 0; i < WRONG_TOKENS; i++) {
            refused.add(Http.get(rules, Map.of("Authorization", "Bearer stranger-guess-" + i)).statusCode());
        }
        assertThat(refused).as("wrong tokens: 403 until the address's allowance is spent, then 429")
                .containsOnly(403, 429).contains(429);

        String id = "e2e.strangers-" + Fleet.freshKey("rule").substring(5);
        long written = System.nanoTime();
        stack.putRule(id, Rules.perApiKey(id, "/strangers/**", 5, "1m", "closed"));
        await("every gateway applies " + id).atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20))
                .until(() -> IntStream.range(0, stack.gateways().size())
                        .allMatch(g -> Fleet.enforces(stack, g, id, "/strangers/probe")));
        LOG.infof("after %d wrong tokens from 127.0.0.1, every gateway applied a new rule %d ms after the write",
                WRONG_TOKENS, (System.nanoTime() - written) / 1_000_000);

        HttpResponse<String> admin = Http.get(rules, Stack.ADMIN);
        assertThat(admin.statusCode()).as("the admin token, from the stranger's address").isEqualTo(200);
        assertThat(Http.get(rules, Map.of("Authorization", "Bearer stranger-guess-again")).statusCode())
                .as("the stranger, still throttled").isEqualTo(429);
    }
}
