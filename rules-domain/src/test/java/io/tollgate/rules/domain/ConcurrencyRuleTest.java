package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;

/** A {@code concurrency} rule: read with its defaults, written, and refused with what does not apply to it. */
class ConcurrencyRuleTest {

    private final RuleCodec codec = new RuleCodec();

    @Test
    void aConcurrencyRuleNeedsNoPeriodAndHoldsASlotForAMinuteUnlessItSays() {
        Rule rule = codec.parseRule("""
                {"id": "reports.inflight", "key": "api_key", "algorithm": "concurrency", "limit": 2}""");
        assertThat(rule.algorithm()).isEqualTo(Algorithm.CONCURRENCY);
        assertThat(rule.slotTtl()).isEqualTo(Duration.ofSeconds(60));
        assertThat(rule.failureMode()).as("no share to give each gateway").isEqualTo(FailureMode.OPEN);
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);

        Rule slotted = codec.parseRule("""
                {"id": "reports.inflight", "key": "api_key", "algorithm": "concurrency", "limit": 2, "slot_ttl": "5s",
                 "failure_mode": "closed", "plans": {"pro": {"limit": 10}}}""");
        assertThat(slotted.slotTtl()).isEqualTo(Duration.ofSeconds(5));
        assertThat(codec.write(slotted)).contains("\"slot_ttl\":\"5s\"");
        assertThat(Effective.resolve(slotted, "pro", null).limit()).isEqualTo(10);
    }

    @Test
    void whatDoesNotApplyToRequestsInFlightIsRefusedNamingTheField() {
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "failure_mode": "local"}""",
                "failure_mode");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "cost": 2}""", "cost");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2,
                 "settle": {"from": "response_bytes"}}""", "settle");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "unit": "tokens"}""", "unit");
        assertRefused("""
                {"id": "r", "key": "api_key", "limit": 2, "period": "1s", "lease": "10s"}""", "lease");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "lease": "0s"}""", "lease");
        assertRefused("""
                {"id": "r", "key": "api_key", "limit": 2, "period": "1s", "slot_ttl": "10s"}""", "slot_ttl");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "slot_ttl": "0s"}""", "slot_ttl");
        assertRefused("""
                {"id": "r", "key": "api_key", "algorithm": "concurrency", "limit": 2, "slot_ttl": "5s",
                 "lease": "5s"}""", "lease");
    }

    private void assertRefused(String json, String field) {
        assertThatThrownBy(() -> codec.parseRule(json)).as(json)
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).contains(field));
    }
}
