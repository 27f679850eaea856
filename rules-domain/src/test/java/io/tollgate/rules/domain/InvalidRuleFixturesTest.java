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
        return Fixtures.expectedFields().entrySet().stream()
                .filter(e -> !e.getKey().startsWith("set-"))
                .map(e -> Arguments.of(e.getKey(), e.getValue()));
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
        return Fixtures.expectedFields().entrySet().stream()
                .filter(e -> e.getKey().startsWith("set-"))
                .map(e -> Arguments.of(e.getKey(), e.getValue()));
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
    void aSetReportsEveryRulesWireAndValueErrorsTogether() {
        String set = "{\"version\": \"x\", \"rules\": ["
                + "{\"id\": \"a\", \"key\": \"ip\", \"limit\": 1, \"period\": \"1s\"},"
                + "{\"id\": \"a\", \"key\": \"ip\", \"limit\": 0, \"period\": \"1s\"},"
                + "{\"id\": \"c\", \"key\": \"ip\", \"limit\": \"ten\", \"period\": \"1w\"}]}";

        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseRuleSet(set));

        assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder("version", "rules[1].id",
                "rules[1].limit", "rules[2].limit", "rules[2].period");
        assertThat(e.errors()).contains(new FieldError("rules[1].id", "a", "duplicate id (also rules[0])"));
    }

    @Test
    void aListWithANonObjectStillChecksEveryOtherRule() {
        byte[] list = "[{\"id\": \"a\", \"key\": \"ip\", \"limit\": 0, \"period\": \"1s\"}, 7]".getBytes();

        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseRules(list, WireFormat.JSON));

        assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder("[0].limit", "[1]");
    }

    @Test
    void everyInvalidFixtureIsCovered() throws URISyntaxException {
        File dir = new File(getClass().getResource("/invalid").toURI());
        long listed = singleRuleFixtures().count() + ruleSetFixtures().count() + 1; // + many-errors
        assertThat(Arrays.stream(dir.list()).count()).isEqualTo(listed);
    }
}
