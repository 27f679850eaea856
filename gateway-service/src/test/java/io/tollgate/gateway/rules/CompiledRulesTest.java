package io.tollgate.gateway.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.rules.domain.FailureMode;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleMatch;
import io.tollgate.rules.domain.RuleSet;

class CompiledRulesTest {

    private static Rule rule(String id, List<String> methods, String path, boolean enabled) {
        return new Rule(id, null, new RuleMatch(methods, path), KeySpec.API_KEY, Algorithm.TOKEN_BUCKET, 10,
                Duration.ofSeconds(1), 10, FailureMode.LOCAL, false, enabled, MissingKey.REJECT, null);
    }

    private final CompiledRules rules = new CompiledRules(new RuleSet(3, List.of(
            rule("orders.write", List.of("POST", "PUT"), "/orders/**", true),
            rule("orders.item", List.of(), "/orders/*/items", true),
            rule("everything", List.of("GET"), "/**", true),
            rule("any.first", List.of(), "/*/admin", true),
            rule("off", List.of(), "/orders/**", false))));

    @Test
    void matchesByMethodAndPathInSetOrder() {
        assertThat(ids("POST", "/orders/1/items")).containsExactly("orders.write", "orders.item");
        assertThat(ids("GET", "/orders/1/items")).containsExactly("orders.item", "everything");
        assertThat(ids("GET", "/orders")).containsExactly("everything");
        assertThat(ids("DELETE", "/x/admin")).containsExactly("any.first");
        assertThat(ids("DELETE", "/x/other")).isEmpty();
    }

    @Test
    void disabledRulesNeverMatch() {
        assertThat(ids("POST", "/orders/9")).doesNotContain("off");
    }

    @Test
    void firstSegmentOfPathsAndGlobs() {
        assertThat(CompiledRules.firstSegment("/orders/1")).isEqualTo("orders");
        assertThat(CompiledRules.firstSegment("//orders")).isEqualTo("orders");
        assertThat(CompiledRules.firstSegment("/")).isEmpty();
    }

    private List<String> ids(String method, String path) {
        return rules.match(method, path).stream().map(Rule::id).toList();
    }
}
