package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

class RuleCodecTest {

    private final RuleCodec codec = new RuleCodec();

    @Test
    void readsDesignExample() {
        Rule rule = codec.parseRule(Fixtures.bytes("valid/orders-write.json"));

        assertThat(rule.id()).isEqualTo("orders.write");
        assertThat(rule.description()).isEqualTo("order writes, per API key");
        assertThat(rule.match()).isEqualTo(new RuleMatch(List.of("POST", "PUT", "PATCH", "DELETE"), "/orders/**"));
        assertThat(rule.key()).isEqualTo(KeySpec.API_KEY);
        assertThat(rule.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(rule.limit()).isEqualTo(10);
        assertThat(rule.period()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rule.burst()).isEqualTo(20);
        assertThat(rule.failureMode()).isEqualTo(FailureMode.LOCAL);
        assertThat(rule.shadow()).isFalse();
        assertThat(rule.enabled()).isTrue();
        assertThat(rule.missingKey()).isEqualTo(MissingKey.REJECT);
        assertThat(rule.policy()).isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20));
    }

    @Test
    void fillsDefaults() {
        Rule rule = codec.parseRule(Fixtures.bytes("valid/minimal.json"));

        assertThat(rule.match()).isEqualTo(RuleMatch.ANY);
        assertThat(rule.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(rule.burst()).as("burst defaults to limit").isEqualTo(1000);
        assertThat(rule.failureMode()).isEqualTo(FailureMode.LOCAL);
        assertThat(rule.missingKey()).isEqualTo(MissingKey.REJECT);
        assertThat(rule.shadow()).isFalse();
        assertThat(rule.enabled()).isTrue();
        assertThat(rule.description()).isNull();
    }

    @Test
    void readsYamlWithEveryOption() {
        Rule rule = codec.parseRule(Fixtures.bytes("valid/every-option.yaml"));

        assertThat(rule.match().methods()).as("methods are upper-cased").containsExactly("GET", "HEAD");
        assertThat(rule.key()).isEqualTo(KeySpec.header("X-Tenant"));
        assertThat(rule.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW);
        assertThat(rule.period()).isEqualTo(Duration.ofSeconds(30));
        assertThat(rule.burst()).isEqualTo(150);
        assertThat(rule.failureMode()).isEqualTo(FailureMode.CLOSED);
        assertThat(rule.shadow()).isTrue();
        assertThat(rule.enabled()).isFalse();
        assertThat(rule.missingKey()).isEqualTo(MissingKey.SKIP);
    }

    @Test
    void writesStableSnakeCaseJson() {
        Rule rule = codec.parseRule(Fixtures.bytes("valid/orders-write.json"));

        assertThat(codec.write(rule)).isEqualTo("{\"id\":\"orders.write\",\"description\":\"order writes, per API key\","
                + "\"match\":{\"methods\":[\"POST\",\"PUT\",\"PATCH\",\"DELETE\"],\"path\":\"/orders/**\"},"
                + "\"key\":\"api_key\",\"algorithm\":\"token_bucket\",\"limit\":10,\"period\":\"1s\",\"burst\":20,"
                + "\"failure_mode\":\"local\",\"shadow\":false,\"enabled\":true,\"missing_key\":\"reject\"}");
    }

    @Test
    void roundTripsEveryValidFixture() {
        for (String name : List.of("valid/orders-write.json", "valid/minimal.json", "valid/every-option.yaml")) {
            Rule rule = codec.parseRule(Fixtures.bytes(name));
            String written = codec.write(rule);

            assertThat(codec.parseRule(written)).as(name).isEqualTo(rule);
            assertThat(codec.write(codec.parseRule(written))).as(name).isEqualTo(written);
        }
    }

    @Test
    void readsAndWritesRuleSets() {
        RuleSet set = codec.parseRuleSet(new String(Fixtures.bytes("valid/set.yaml")));

        assertThat(set.version()).isEqualTo(7);
        assertThat(set.rules()).extracting(Rule::id).containsExactly("orders.write", "everything");
        assertThat(codec.parseRuleSet(codec.write(set))).isEqualTo(set);
        assertThat(codec.parseRuleSet(codec.writeYaml(set))).isEqualTo(set);
        assertThat(codec.write(new RuleSet(3, List.of()))).isEqualTo("{\"version\":3,\"rules\":[]}");
    }

    @Test
    void parseRulesTakesAnArrayOrASet() {
        byte[] array = ("[" + codec.write(Rule.of("a", "/**", KeySpec.IP, 1, Duration.ofSeconds(1))) + "]").getBytes();

        assertThat(codec.parseRules(array, WireFormat.JSON)).extracting(Rule::id).containsExactly("a");
        assertThat(codec.parseRules(Fixtures.bytes("valid/set.yaml"), WireFormat.YAML)).hasSize(2);
    }

    @Test
    void sniffsTheFormat() {
        assertThat(WireFormat.sniff(" \n{\"a\":1}".getBytes())).isEqualTo(WireFormat.JSON);
        assertThat(WireFormat.sniff("[1]".getBytes())).isEqualTo(WireFormat.JSON);
        assertThat(WireFormat.sniff("id: a".getBytes())).isEqualTo(WireFormat.YAML);
        assertThat(WireFormat.ofMediaType("application/yaml")).isEqualTo(WireFormat.YAML);
        assertThat(WireFormat.ofMediaType("application/json; charset=utf-8")).isEqualTo(WireFormat.JSON);
    }
}
