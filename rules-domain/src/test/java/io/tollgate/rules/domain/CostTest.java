package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A rule's {@code cost} and {@code unit}: read, written (left out at their defaults), the cost checked against
 * what the rule's buckets hold and passed on to them.
 */
class CostTest {

    private final RuleCodec codec = new RuleCodec();

    @Test
    void aCostIsReadWrittenAndGivenToTheBucketsPolicyAndItsPlans() {
        Rule rule = codec.parseRule("""
                {"id": "llm.calls", "key": "api_key", "limit": 10, "period": "1s", "burst": 20, "cost": 5,
                 "plans": {"pro": {"limit": 100}}}""");
        assertThat(rule.cost()).isEqualTo(5);
        assertThat(rule.policy().cost()).isEqualTo(5);
        assertThat(Effective.resolve(rule, "pro", null).policy().cost()).as("a plan keeps the rule's cost")
                .isEqualTo(5);
        assertThat(codec.write(rule)).contains("\"cost\":5");
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);
    }

    @Test
    void aUnitIsReadWrittenAndRefusedWhenUnknown() {
        Rule rule = codec.parseRule("""
                {"id": "llm.tokens", "key": "api_key", "limit": 100000, "period": "1m", "unit": "tokens"}""");
        assertThat(rule.unit()).isEqualTo(Unit.TOKENS);
        assertThat(codec.write(rule)).contains("\"unit\":\"tokens\"");
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);
        assertThat(codec.write(codec.parseRule("{\"id\": \"r\", \"key\": \"ip\", \"limit\": 1, \"period\": \"1s\"}")))
                .as("requests, the default, is left out").doesNotContain("unit");
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "odd", "key": "api_key", "limit": 1, "period": "1s", "unit": "parsecs"}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("unit"));
    }

    @Test
    void aSettleIsReadWrittenAndSaysWhereTheUsageIs() {
        Rule rule = codec.parseRule("""
                {"id": "llm.tokens", "key": "api_key", "limit": 100000, "period": "1m", "cost": 500,
                 "unit": "tokens", "settle": {"from": "json:/usage/total_tokens"}}""");
        assertThat(rule.settle().source()).isEqualTo(Settle.Source.JSON);
        assertThat(rule.settle().argument()).isEqualTo("/usage/total_tokens");
        assertThat(codec.write(rule)).contains("\"settle\":{\"from\":\"json:/usage/total_tokens\"}");
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);
        assertThat(new Settle("header:X-Usage-Tokens").argument()).isEqualTo("X-Usage-Tokens");
        assertThat(new Settle("response_bytes").source()).isEqualTo(Settle.Source.RESPONSE_BYTES);
        assertThat(codec.write(codec.parseRule("{\"id\": \"r\", \"key\": \"ip\", \"limit\": 1, \"period\": \"1s\"}")))
                .doesNotContain("settle");
    }

    @Test
    void aSettleThatNamesNoSourceIsRefusedNamingTheField() {
        for (String bad : new String[]{"\"header:\"", "\"header:X Usage\"", "\"json:usage\"", "\"json:/a~2b\"",
                "\"body\"", "\"\""}) {
            assertThatThrownBy(() -> codec.parseRule("""
                    {"id": "llm", "key": "api_key", "limit": 10, "period": "1s", "settle": {"from": %s}}"""
                    .formatted(bad)))
                    .as(bad)
                    .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                            .extracting(FieldError::field).containsExactly("settle.from"));
        }
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "llm", "key": "api_key", "limit": 10, "period": "1s", "settle": "header:X"}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("settle"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "llm", "key": "api_key", "limit": 10, "period": "1s", "settle": {"from": "header:X", "to": 1}}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("settle.to"));
    }

    @Test
    void aSettleOtherwiseIsReadWrittenAndChargedWhenTheUsageNeverComes() {
        Rule rule = codec.parseRule("""
                {"id": "llm.tokens", "key": "api_key", "limit": 100000, "period": "1m", "cost": 500,
                 "unit": "tokens", "settle": {"from": "json:/usage/total_tokens", "otherwise": 4096}}""");
        assertThat(rule.settle().otherwise()).isEqualTo(4096);
        assertThat(rule.settle().otherwiseOr(rule.cost())).isEqualTo(4096);
        assertThat(codec.write(rule))
                .contains("\"settle\":{\"from\":\"json:/usage/total_tokens\",\"otherwise\":4096}");
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);
        assertThat(new Settle("response_bytes").otherwiseOr(500)).as("left out: the reservation").isEqualTo(500);
        assertThat(codec.write(codec.parseRule("""
                {"id": "r", "key": "ip", "limit": 1, "period": "1s", "settle": {"from": "response_bytes"}}""")))
                .as("left out of the wire form when not given").doesNotContain("otherwise");
        assertThat(codec.parseRule("""
                {"id": "r", "key": "ip", "limit": 1, "period": "1s", "settle": {"from": "response_bytes",
                 "otherwise": 0}}""").settle().otherwiseOr(1)).as("0 is a charge: nothing").isZero();
    }

    @Test
    void aSettleOtherwiseThatIsNoWholeNumberFromZeroIsRefusedNamingTheFieldAndTheValue() {
        for (String bad : new String[]{"-1", "1.5", "\"4096\"", "true", "1000000001"}) {
            assertThatThrownBy(() -> codec.parseRule("""
                    {"id": "llm", "key": "api_key", "limit": 10, "period": "1s",
                     "settle": {"from": "header:X", "otherwise": %s}}""".formatted(bad)))
                    .as(bad)
                    .isInstanceOfSatisfying(RuleValidationException.class, e -> {
                        assertThat(e.errors()).extracting(FieldError::field).containsExactly("settle.otherwise");
                        assertThat(e.errors().get(0).value()).contains(bad.replace("\"", ""));
                    });
        }
    }

    @Test
    void theDefaultCostIsOneAndLeftOutOfTheWireForm() {
        Rule rule = codec.parseRule("{\"id\": \"plain\", \"key\": \"ip\", \"limit\": 10, \"period\": \"1s\"}");
        assertThat(rule.cost()).isEqualTo(1);
        assertThat(codec.write(rule)).doesNotContain("cost");
    }

    @Test
    void aCostNoBucketCanHoldIsRefusedNamingTheFieldAndThePlan() {
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "dear", "key": "api_key", "limit": 10, "period": "1s", "burst": 4, "cost": 5}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("cost"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "window", "key": "api_key", "algorithm": "fixed_window", "limit": 3, "period": "1m",
                 "burst": 100, "cost": 5}"""))
                .as("a window holds its limit, whatever the burst").isInstanceOf(RuleValidationException.class);
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "planned", "key": "api_key", "limit": 10, "period": "1s", "burst": 20, "cost": 5,
                 "plans": {"free": {"limit": 2}, "blocked": {"limit": 0}}}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("plans.free"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "zero", "key": "api_key", "limit": 10, "period": "1s", "cost": 0}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("cost"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "text", "key": "api_key", "limit": 10, "period": "1s", "cost": "five"}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("cost"));
    }

    @Test
    void anOverrideThatHoldsLessThanTheCostDoesNotFit() {
        RuleSet rules = codec.parseRuleSet("""
                {"rules": [{"id": "llm.calls", "key": "api_key", "limit": 10, "period": "1s", "burst": 20,
                            "cost": 5}]}""");
        ClientEntry small = new ClientEntry(null, null, null,
                java.util.Map.of("llm.calls", new Limits(2L, null, null)));
        ClientEntry blocked = new ClientEntry(null, null, null,
                java.util.Map.of("llm.calls", new Limits(0L, null, null)));
        assertThat(DirectoryValidator.fit(small, rules)).extracting(FieldError::field)
                .containsExactly("overrides.llm.calls");
        assertThat(DirectoryValidator.fit(blocked, rules)).isEmpty();
    }

    @Test
    void aSetNamesTheRuleWhoseCostNoBucketHolds() {
        assertThatThrownBy(() -> codec.parseRuleSet("""
                {"rules": [{"id": "ok", "key": "ip", "limit": 1, "period": "1s"},
                           {"id": "dear", "key": "ip", "limit": 1, "period": "1s", "cost": 2}]}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("rules[1].cost"));
    }
}
