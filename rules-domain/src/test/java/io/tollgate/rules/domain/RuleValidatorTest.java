package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;

/** The validator on rules built in code, as a gateway or a test would build them. */
class RuleValidatorTest {

    @Test
    void acceptsAValidRule() {
        Rule rule = Rule.of("a.b-c_d", "/x/*", KeySpec.header("X-Tenant"), 5, Duration.ofMinutes(1));

        assertThat(RuleValidator.validate(rule)).isEmpty();
        assertThat(RuleValidator.requireValid(rule)).isSameAs(rule);
        assertThat(rule.policy().periodMs()).isEqualTo(60_000);
        assertThat(rule.pathPattern().matches("/x/1")).isTrue();
    }

    @Test
    void listsEveryBadValue() {
        Rule rule = new Rule("-bad", null, new RuleMatch(List.of("GET", "YELL"), "/a/**/b"), null, Algorithm.GCRA, 0,
                Duration.ZERO, 0, null, false, true, null, null);

        assertThat(RuleValidator.validate(rule)).extracting(FieldError::field).containsExactly("id",
                "match.methods[1]", "match.path", "key", "limit", "period", "burst");
        assertThatThrownBy(() -> RuleValidator.requireValid(rule)).isInstanceOf(RuleValidationException.class)
                .hasMessageContaining("limit: must be at least 1");
    }

    @Test
    void reasonsKeepTheConstraintsParametersAndTheUsersText() {
        Rule rule = new Rule("Bad", "d".repeat(1_001), new RuleMatch(List.of(), "/a/{x}/${y}"), KeySpec.IP,
                Algorithm.GCRA, 1, Duration.ofMillis(1), 1, null, false, true, null, null);

        assertThat(RuleValidator.validate(rule)).containsExactly(
                new FieldError("id", "Bad", "must match ^[a-z0-9][a-z0-9._-]{0,62}$"),
                new FieldError("description", "d".repeat(200) + "…", "must be at most 1000 characters"),
                new FieldError("match.path", "/a/{x}/${y}",
                        "segment '{x}' is neither '*', '**' nor literal path characters"));
    }

    @Test
    void aPeriodBelowOneMillisecondIsRejected() {
        Rule rule = Rule.of("a", "/**", KeySpec.GLOBAL, 1, Duration.ofNanos(500_000));

        assertThat(RuleValidator.validate(rule))
                .containsExactly(new FieldError("period", "PT0.0005S", "must be at least 1 millisecond"));
    }

    @Test
    void aSetListsItsRulesErrorsUnderTheirPlaceAndEveryRepeatedId() {
        Rule good = Rule.of("a", "/**", KeySpec.IP, 1, Duration.ofSeconds(1));
        Rule zero = Rule.of("b", "/**", KeySpec.IP, 0, Duration.ofSeconds(1));
        RuleSet set = new RuleSet(-1, List.of(good, good, zero, Rule.of("b", "/x", KeySpec.IP, 1, Duration.ofSeconds(1)),
                good));

        assertThat(RuleValidator.validate(set)).containsExactly(
                new FieldError("version", "-1", "must be a whole number >= 0"),
                new FieldError("rules[1].id", "a", "duplicate id (also rules[0])"),
                new FieldError("rules[2].limit", "0", "must be at least 1"),
                new FieldError("rules[2].burst", "0", "must be at least 1"),
                new FieldError("rules[3].id", "b", "duplicate id (also rules[2])"),
                new FieldError("rules[4].id", "a", "duplicate id (also rules[0])"));
        assertThatThrownBy(() -> RuleValidator.requireValid(set)).isInstanceOf(RuleValidationException.class);
        assertThat(RuleValidator.requireValid(new RuleSet(3, List.of(good)))).isNotNull();
    }

    @Test
    void idBoundaries() {
        assertThat(RuleValidator.ID.matcher("a").matches()).isTrue();
        assertThat(RuleValidator.ID.matcher("a".repeat(63)).matches()).isTrue();
        assertThat(RuleValidator.ID.matcher("a".repeat(64)).matches()).isFalse();
        assertThat(RuleValidator.ID.matcher(".a").matches()).isFalse();
        assertThat(RuleValidator.ID.matcher("A").matches()).isFalse();
    }

    @Test
    void keySpecWireForms() {
        assertThat(KeySpec.parse("api_key")).contains(KeySpec.API_KEY);
        assertThat(KeySpec.parse("ip")).contains(KeySpec.IP);
        assertThat(KeySpec.parse("global")).contains(KeySpec.GLOBAL);
        assertThat(KeySpec.parse("header:X-Tenant")).contains(KeySpec.header("X-Tenant"));
        assertThat(KeySpec.parse("header:")).isEmpty();
        assertThat(KeySpec.parse("API_KEY")).isEmpty();
        assertThat(KeySpec.header("X-Tenant").wire()).isEqualTo("header:X-Tenant");
        assertThat(KeySpec.API_KEY.wire()).isEqualTo("api_key");
    }
}
