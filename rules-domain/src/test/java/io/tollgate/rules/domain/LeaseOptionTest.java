package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;

/**
 * {@code "lease": "auto" | "off"} on the algorithms other than {@code concurrency}: read, written (left out at
 * {@code auto}), refused where it does not belong, and what {@link Rule#leases()} makes of it.
 */
class LeaseOptionTest {

    private final RuleCodec codec = new RuleCodec();

    private Rule parse(String algorithm, String leaseField) {
        return codec.parseRule("{\"id\": \"r\", \"key\": \"api_key\", \"algorithm\": \"" + algorithm
                + "\", \"limit\": 10, \"period\": \"1s\"" + leaseField + "}");
    }

    @Test
    void aBucketLeasesUnlessItsLeaseIsOff() {
        Rule absent = parse("token_bucket", "");
        Rule auto = parse("token_bucket", ", \"lease\": \"auto\"");
        Rule off = parse("token_bucket", ", \"lease\": \"off\"");

        assertThat(absent.leasing()).isEqualTo(Leasing.AUTO);
        assertThat(auto).as("auto is the default").isEqualTo(absent);
        assertThat(off.leasing()).isEqualTo(Leasing.OFF);
        assertThat(off.slotTtl()).as("a slot's duration is concurrency's alone").isNull();
        assertThat(absent.leases()).isTrue();
        assertThat(parse("gcra", "").leases()).isTrue();
        assertThat(off.leases()).isFalse();
    }

    @Test
    void offIsWrittenAndAutoLeftOutAndBothReadBackEqual() {
        Rule off = parse("gcra", ", \"lease\": \"off\"");
        Rule auto = parse("gcra", ", \"lease\": \"auto\"");

        assertThat(codec.write(off)).contains("\"lease\":\"off\"");
        assertThat(codec.write(auto)).doesNotContain("lease");
        for (Rule rule : List.of(off, auto, parse("fixed_window", ", \"lease\": \"off\""),
                parse("sliding_window", ", \"lease\": \"off\""))) {
            assertThat(codec.parseRule(codec.write(rule))).as(codec.write(rule)).isEqualTo(rule);
        }
        RuleSet set = new RuleSet(1, List.of(off, Rule.of("other", "/**", KeySpec.IP, 1, Duration.ofSeconds(1))));
        assertThat(codec.parseRuleSet(codec.writeYaml(set))).isEqualTo(set);
    }

    @Test
    void aConcurrencyRuleStillReadsItsSlotTtlUnderLeaseItsDeprecatedNameAndWritesItAsSlotTtl() {
        Rule rule = parse("concurrency", ", \"lease\": \"5s\"");

        assertThat(rule.slotTtl()).isEqualTo(Duration.ofSeconds(5));
        assertThat(rule.leasing()).isEqualTo(Leasing.AUTO);
        assertThat(rule).isEqualTo(parse("concurrency", ", \"slot_ttl\": \"5s\""));
        assertThat(codec.write(rule)).contains("\"slot_ttl\":\"5s\"").doesNotContain("lease");
        assertThat(codec.parseRule(codec.write(rule))).isEqualTo(rule);
    }

    @Test
    void onlyAnEnforcedBucketWithLeasingAutoLeases() {
        assertThat(parse("token_bucket", ", \"shadow\": true").leases()).as("shadow").isFalse();
        assertThat(parse("concurrency", "").leases()).as("concurrency").isFalse();
        assertThat(parse("fixed_window", "").leases()).as("fixed_window").isFalse();
        assertThat(parse("sliding_window", "").leases()).as("sliding_window").isFalse();
        assertThat(parse("token_bucket", ", \"lease\": \"off\"").leases()).as("off").isFalse();
    }

    @Test
    void autoOrOffOnAConcurrencyRuleIsRefusedOnLease() {
        for (String value : List.of("off", "auto")) {
            FieldError error = onlyError("concurrency", ", \"lease\": \"" + value + "\"");
            assertThat(error.field()).isEqualTo("lease");
            assertThat(error.value()).isEqualTo(value);
            assertThat(error.reason()).contains("how long a slot lasts");
        }
    }

    @Test
    void aDurationOrAnUnknownWordOnABucketIsRefusedNamingWhatLeaseTakes() {
        for (String value : List.of("60s", "maybe")) {
            FieldError error = onlyError("token_bucket", ", \"lease\": \"" + value + "\"");
            assertThat(error.field()).isEqualTo("lease");
            assertThat(error.reason()).contains("auto or off").contains("concurrency rules only");
        }
        assertThat(onlyError("gcra", ", \"lease\": 60").field()).isEqualTo("lease");
    }

    @Test
    void withAnUnknownAlgorithmOnlyALeaseOfNeitherFormIsReported() {
        assertThat(errors("leaky_bucket", ", \"lease\": \"off\"")).extracting(FieldError::field)
                .containsExactly("algorithm");
        assertThat(errors("leaky_bucket", ", \"lease\": \"30s\"")).extracting(FieldError::field)
                .containsExactly("algorithm");
        assertThat(errors("leaky_bucket", ", \"lease\": \"maybe\"")).extracting(FieldError::field)
                .containsExactly("algorithm", "lease");
    }

    @Test
    void theValidatorRefusesAConcurrencyRuleBuiltWithLeasingOff() {
        Rule rule = new Rule("r", null, RuleMatch.ANY, KeySpec.API_KEY, Algorithm.CONCURRENCY, 2, null, 2,
                FailureMode.OPEN, false, true, MissingKey.REJECT, Map.of(), 1, Unit.REQUESTS, null, null, null,
                Leasing.OFF);

        assertThat(RuleValidator.validate(rule)).extracting(FieldError::field).containsExactly("lease");
        assertThat(RuleValidator.validate(rule.withCost(1))).as("withCost keeps leasing").hasSize(1);
    }

    private List<FieldError> errors(String algorithm, String leaseField) {
        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> parse(algorithm, leaseField));
        assertThat(e).as(algorithm + leaseField).isNotNull();
        return e.errors();
    }

    private FieldError onlyError(String algorithm, String leaseField) {
        List<FieldError> errors = errors(algorithm, leaseField);
        assertThat(errors).hasSize(1);
        return errors.get(0);
    }
}
