package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/** Plans on rules, directory entries and the effective policy (docs/clients-plans-tenants.md). */
class PlansAndDirectoryTest {

    private final RuleCodec rules = new RuleCodec();
    private final DirectoryCodec directory = new DirectoryCodec();

    private final Rule orders = rules.parseRule("""
            {"id": "orders.write", "key": "api_key", "limit": 10, "period": "1m", "burst": 20,
             "plans": {"free": {"limit": 2}, "pro": {"limit": 100, "burst": 200}, "slow": {"period": "1h"},
                       "blocked": {"limit": 0}}}""");

    @Test
    void aPlanSetsWhatItNamesAndTheRestIsTheRules() {
        assertThat(Effective.resolve(orders, null, null))
                .isEqualTo(new Effective(10, Duration.ofMinutes(1), 20, "rule",
                        new Policy(Algorithm.TOKEN_BUCKET, 10, 60_000, 20)));
        // a limit without a burst: burst = that limit
        assertThat(Effective.resolve(orders, "free", null).policy())
                .isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 2, 60_000, 2));
        assertThat(Effective.resolve(orders, "free", null).source()).isEqualTo("plan:free");
        assertThat(Effective.resolve(orders, "pro", null).policy())
                .isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 100, 60_000, 200));
        assertThat(Effective.resolve(orders, "slow", null).policy())
                .isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 10, 3_600_000, 20));
        // a plan the rule does not name: the rule's own
        assertThat(Effective.resolve(orders, "enterprise", null).source()).isEqualTo("rule");
    }

    @Test
    void anOverrideWinsOverThePlanAndLimitZeroBlocks() {
        Effective over = Effective.resolve(orders, "free", new Limits(500L, null, null));
        assertThat(over.source()).isEqualTo("override");
        assertThat(over.policy()).isEqualTo(new Policy(Algorithm.TOKEN_BUCKET, 500, 60_000, 500));
        assertThat(Effective.resolve(orders, "blocked", null).blocks()).isTrue();
        assertThat(Effective.resolve(orders, "blocked", null).limit()).isZero();
    }

    @Test
    void plansRoundTripAndBadPlansNameEachField() {
        assertThat(rules.parseRule(rules.write(orders))).isEqualTo(orders);
        assertThat(rules.write(Rule.of("a", "/**", KeySpec.API_KEY, 1, Duration.ofSeconds(1)))).doesNotContain("plans");

        assertThatThrownBy(() -> rules.parseRule("""
                {"id": "a", "key": "tenant", "limit": 1, "period": "1s",
                 "plans": {"Bad Name": {"limit": 1}, "neg": {"limit": -1, "burst": 0}, "odd": {"limit": "x", "rate": 1}}}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field)
                        .contains("plans.Bad Name", "plans.neg.limit", "plans.neg.burst", "plans.odd.limit",
                                "plans.odd.rate"));
    }

    @Test
    void aClientEntryIsReadStrictlyAndChecksAgainstTheRules() {
        ClientEntry entry = directory.parseClient(bytes("""
                {"tenant": "acme", "plan": "pro", "label": "Acme production",
                 "overrides": {"orders.write": {"limit": 500, "period": "1m", "burst": 500}}}"""));
        assertThat(entry.overrides().get("orders.write")).isEqualTo(new Limits(500L, Duration.ofMinutes(1), 500L));
        assertThat(directory.parseClient(bytes(directory.write(entry)))).isEqualTo(entry);
        RuleSet set = new RuleSet(1, List.of(orders, Rule.of("per.tenant", "/**", KeySpec.TENANT, 5,
                Duration.ofSeconds(1))));
        assertThat(DirectoryValidator.fit(entry, set)).isEmpty();

        ClientEntry misfit = new ClientEntry(null, "gold", null,
                Map.of("nope", new Limits(1L, null, null), "per.tenant", new Limits(1L, null, null)));
        assertThat(DirectoryValidator.fit(misfit, set)).extracting(FieldError::field)
                .containsExactlyInAnyOrder("plan", "overrides.nope", "overrides.per.tenant");

        assertThatThrownBy(() -> directory.parseClient(bytes("""
                {"tenant": "ACME!", "plan": 3, "colour": "red", "overrides": {"orders.write": {"limit": -5}}}""")))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field)
                        .containsExactlyInAnyOrder("tenant", "plan", "colour", "overrides.orders.write.limit"));
    }

    @Test
    void aPageOfChangesRoundTripsWithDeletions() {
        String digest = ClientDigest.of("ak_42");
        DirectoryChanges page = new DirectoryChanges(7, true,
                List.of(new DirectoryChanges.TenantChange("acme", new TenantEntry("enterprise", "Acme", null)),
                        new DirectoryChanges.TenantChange("gone", null)),
                List.of(new DirectoryChanges.ClientChange(digest, new ClientEntry("acme", null, "prod", null)),
                        new DirectoryChanges.ClientChange(ClientDigest.of("old"), null)));
        String json = directory.write(page);
        assertThat(json).doesNotContain("ak_42").contains("\"deleted\":true");
        assertThat(directory.parseChanges(bytes(json))).isEqualTo(page);
        assertThat(digest).hasSize(64).matches("[0-9a-f]+");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
