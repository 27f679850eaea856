package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.File;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One fixture per validation failure, named for it: each is rejected, naming exactly the bad field. */
class InvalidRuleFixturesTest {

    private final RuleCodec codec = new RuleCodec();

    static Stream<Arguments> singleRuleFixtures() {
        return Stream.of(
                Arguments.of("id-missing", "id"),
                Arguments.of("id-pattern", "id"),
                Arguments.of("id-too-long", "id"),
                Arguments.of("id-not-string", "id"),
                Arguments.of("path-no-leading-slash", "match.path"),
                Arguments.of("path-double-star-not-last", "match.path"),
                Arguments.of("path-partial-wildcard", "match.path"),
                Arguments.of("path-empty-segment", "match.path"),
                Arguments.of("path-trailing-slash", "match.path"),
                Arguments.of("method-unknown", "match.methods[1]"),
                Arguments.of("methods-not-list", "match.methods"),
                Arguments.of("match-unknown-field", "match.host"),
                Arguments.of("match-not-object", "match"),
                Arguments.of("key-missing", "key"),
                Arguments.of("key-unknown", "key"),
                Arguments.of("key-header-without-name", "key"),
                Arguments.of("key-header-bad-name", "key"),
                Arguments.of("algorithm-unknown", "algorithm"),
                Arguments.of("period-missing", "period"),
                Arguments.of("period-bad-syntax", "period"),
                Arguments.of("period-zero", "period"),
                Arguments.of("period-unit-unknown", "period"),
                Arguments.of("period-negative-iso", "period"),
                Arguments.of("limit-missing", "limit"),
                Arguments.of("limit-zero", "limit"),
                Arguments.of("limit-negative", "limit"),
                Arguments.of("limit-not-number", "limit"),
                Arguments.of("limit-fraction", "limit"),
                Arguments.of("burst-zero", "burst"),
                Arguments.of("burst-not-number", "burst"),
                Arguments.of("failure-mode-unknown", "failure_mode"),
                Arguments.of("missing-key-unknown", "missing_key"),
                Arguments.of("shadow-not-boolean", "shadow"),
                Arguments.of("enabled-not-boolean", "enabled"),
                Arguments.of("unknown-field", "rate"),
                Arguments.of("description-not-string", "description"),
                Arguments.of("duplicate-field", ""),
                Arguments.of("not-json", ""),
                Arguments.of("not-an-object", ""),
                Arguments.of("empty-body", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("singleRuleFixtures")
    void eachFixtureIsRejectedNamingItsField(String fixture, String field) {
        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseRule(Fixtures.bytes("invalid/" + fixture + ".json"), WireFormat.JSON));

        assertThat(e).as(fixture).isNotNull();
        assertThat(e.errors()).extracting(FieldError::field).containsExactly(field);
        assertThat(e.errors().get(0).reason()).isNotBlank();
    }

    static Stream<Arguments> ruleSetFixtures() {
        return Stream.of(
                Arguments.of("set-duplicate-ids", "rules[1].id"),
                Arguments.of("set-rules-missing", "rules"),
                Arguments.of("set-unknown-field", "etag"),
                Arguments.of("set-bad-rule", "rules[1].limit"),
                Arguments.of("set-version-negative", "version"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ruleSetFixtures")
    void eachRuleSetFixtureIsRejectedNamingItsField(String fixture, String field) {
        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseRuleSet(Fixtures.bytes("invalid/" + fixture + ".json"), WireFormat.JSON));

        assertThat(e.errors()).extracting(FieldError::field).containsExactly(field);
    }

    @Test
    void everyBadFieldIsListedWithItsValue() {
        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseRule(Fixtures.bytes("invalid/many-errors.json"), WireFormat.JSON));

        assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder("colour", "id",
                "match.methods[0]", "match.path", "key", "algorithm", "limit", "period", "burst", "failure_mode",
                "missing_key", "shadow");
        assertThat(e.errors()).contains(new FieldError("limit", "0", "must be at least 1"));
        assertThat(e.errors()).anySatisfy(err -> {
            assertThat(err.field()).isEqualTo("key");
            assertThat(err.value()).isEqualTo("user");
        });
    }

    @Test
    void everyInvalidFixtureIsCovered() throws URISyntaxException {
        File dir = new File(getClass().getResource("/invalid").toURI());
        long listed = singleRuleFixtures().count() + ruleSetFixtures().count() + 1; // + many-errors
        assertThat(Arrays.stream(dir.list()).count()).isEqualTo(listed);
    }
}
