package io.tollgate.gateway.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryChanges.ClientChange;
import io.tollgate.rules.domain.DirectoryChanges.TenantChange;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Limits;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.TenantEntry;

/** The effective policy and the bucket of each rule for a client, tenant or unknown key (pure logic). */
class DirectoryClientTest {

    private static final Map<String, Limits> PLANS = Map.of(
            "free", new Limits(2L, null, null),
            "pro", new Limits(100L, null, 200L),
            "blocked", new Limits(0L, null, null));
    private static final Rule BY_KEY = Rule.of("orders.write", "/orders/**", KeySpec.API_KEY, 10, Duration.ofMinutes(1))
            .withPlans(PLANS);
    private static final Rule BY_TENANT = Rule.of("orders.tenant", "/orders/**", KeySpec.TENANT, 50,
            Duration.ofMinutes(1)).withPlans(PLANS);
    private static final Limits OVERRIDE = new Limits(500L, Duration.ofHours(1), null);

    private final Directory directory = new Directory(new SimpleMeterRegistry());

    @Test
    void anUnknownKeyGetsTheRulesOwnAndIsATenantOfItsOwn() {
        directory.apply(page(1, List.of(), List.of(client("someone-else", new ClientEntry(null, "pro", null, Map.of())))));
        DirectoryClient caller = directory.client("stranger");
        assertThat(caller.known()).isFalse();
        assertThat(caller.effective(BY_KEY).source()).isEqualTo(Effective.RULE);
        assertThat(caller.effective(BY_TENANT).limit()).isEqualTo(50);
        assertThat(caller.bucketKey(BY_KEY)).isEqualTo("rl:orders.write:{sha256:" + sha256("stranger") + "}");
        assertThat(caller.bucketKey(BY_TENANT)).isEqualTo("rl:orders.tenant:{sha256:" + sha256("stranger") + "}");
        assertThat(caller.tag()).isEqualTo("sha256:" + sha256("stranger"));
    }

    @Test
    void anApiKeyIsDigestedInItsBucketKeyEvenWhileTheDirectoryIsEmpty() {
        DirectoryClient caller = new Directory(new SimpleMeterRegistry()).client("sk_live_CUSTOMER_SECRET_1");
        // printf %s sk_live_CUSTOMER_SECRET_1 | sha256sum
        assertThat(caller.bucketKey(BY_KEY)).isEqualTo(
                "rl:orders.write:{sha256:ec55d3b93511d9aa888074250efb3de48be4ab46844576740ab64a09de49f374}");
        assertThat(caller.tag()).isEqualTo("sha256:ec55d3b93511d9aa888074250efb3de48be4ab46844576740ab64a09de49f374");
        assertThat(caller.client().sha256()).isEqualTo(sha256("sk_live_CUSTOMER_SECRET_1"));
    }

    @Test
    void aClientsOverrideThenItsPlanThenItsTenantsPlan() {
        directory.apply(page(1,
                List.of(new TenantChange("acme", new TenantEntry("pro", "Acme", Map.of("orders.tenant", OVERRIDE)))),
                List.of(client("free-key", new ClientEntry(null, "free", null, Map.of())),
                        client("acme-1", new ClientEntry("acme", null, null, Map.of())),
                        client("acme-2", new ClientEntry("acme", "free", null, Map.of("orders.write", OVERRIDE))),
                        client("gone", new ClientEntry("acme", "blocked", null, Map.of())))));

        DirectoryClient free = directory.client("free-key");
        assertThat(free.effective(BY_KEY).source()).isEqualTo("plan:free");
        assertThat(free.effective(BY_KEY).burst()).as("a plan's limit without burst: burst = limit").isEqualTo(2);
        assertThat(free.effective(BY_TENANT).source()).as("its own tenant: its plan").isEqualTo("plan:free");
        assertThat(free.bucketKey(BY_TENANT)).isEqualTo("rl:orders.tenant:{sha256:" + sha256("free-key") + "}");

        DirectoryClient acme1 = directory.client("acme-1");
        assertThat(acme1.effective(BY_KEY).source()).as("no plan of its own: its tenant's").isEqualTo("plan:pro");
        assertThat(acme1.effective(BY_KEY).burst()).isEqualTo(200);
        assertThat(acme1.effective(BY_TENANT).source()).as("the tenant's override").isEqualTo(Effective.OVERRIDE);
        assertThat(acme1.effective(BY_TENANT).period()).isEqualTo(Duration.ofHours(1));
        assertThat(acme1.bucketKey(BY_KEY)).isEqualTo("rl:orders.write:{acme}:sha256:" + sha256("acme-1"));
        assertThat(acme1.bucketKey(BY_TENANT)).isEqualTo("rl:orders.tenant:{acme}:@");
        assertThat(acme1.tag()).isEqualTo("acme");
        assertThat(directory.client("acme").bucketKey(BY_TENANT)).as("an unknown key spelled as the tenant's id")
                .isEqualTo("rl:orders.tenant:{sha256:" + sha256("acme") + "}").isNotEqualTo(acme1.bucketKey(BY_TENANT));

        DirectoryClient acme2 = directory.client("acme-2");
        assertThat(acme2.effective(BY_KEY).source()).isEqualTo(Effective.OVERRIDE);
        assertThat(acme2.effective(BY_KEY).limit()).isEqualTo(500);
        assertThat(acme2.effective(BY_KEY).burst()).isEqualTo(500);

        assertThat(directory.client("gone").effective(BY_KEY).blocks()).isTrue();
    }

    @Test
    void eachPolicyIsWorkedOutOnceNotPerRequest() {
        directory.apply(page(1, List.of(), List.of(client("o", new ClientEntry(null, "pro", null,
                Map.of("orders.write", OVERRIDE))), client("p", new ClientEntry(null, "pro", null, Map.of())))));
        assertThat(directory.client("o").effective(BY_KEY)).isSameAs(directory.client("o").effective(BY_KEY));
        assertThat(directory.client("p").effective(BY_KEY)).isSameAs(directory.client("p").effective(BY_KEY));
        assertThat(directory.own(BY_KEY)).isSameAs(directory.client("nobody").effective(BY_KEY));
        assertThat(directory.own(BY_KEY).policy()).isEqualTo(BY_KEY.policy());
    }

    @Test
    void aTenantDeletedOrUnknownLeavesItsClientsTheirOwnPlanAndTheRulesOwnTenantPolicy() {
        directory.apply(page(1, List.of(new TenantChange("acme", new TenantEntry("pro", null, Map.of()))),
                List.of(client("a", new ClientEntry("acme", null, null, Map.of())))));
        directory.apply(page(2, List.of(new TenantChange("acme", null)), List.of()));
        DirectoryClient a = directory.client("a");
        assertThat(a.effective(BY_KEY).source()).isEqualTo(Effective.RULE);
        assertThat(a.effective(BY_TENANT).source()).isEqualTo(Effective.RULE);
        assertThat(a.bucketKey(BY_TENANT)).as("still counted with its tenant").isEqualTo("rl:orders.tenant:{acme}:@");
    }

    @Test
    void aKeyThatComesAgainIsReadOnceUntilTheDirectoryChanges() {
        directory.apply(page(1, List.of(), List.of(client("k", new ClientEntry(null, "free", null, Map.of())))));
        DirectoryClient first = directory.client("k");
        String key = first.bucketKey(BY_KEY);
        assertThat(directory.client(new String("k"))).as("the same key in another string").isSameAs(first);
        assertThat(first.bucketKey(BY_KEY)).as("its bucket key worked out once").isSameAs(key);

        directory.apply(page(2, List.of(), List.of(client("k", new ClientEntry(null, "pro", null, Map.of())))));
        DirectoryClient after = directory.client("k");
        assertThat(after).isNotSameAs(first);
        assertThat(after.effective(BY_KEY).source()).as("read from the changed directory").isEqualTo("plan:pro");
        assertThat(after.bucketKey(BY_KEY)).isEqualTo(key);
    }

    @Test
    void keysThatShareASlotEachGetTheirOwnCaller() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        directory.apply(page(1, List.of(), List.of(client("Aa", new ClientEntry(null, "pro", null, Map.of())))));
        assertThat(directory.client("Aa").known()).isTrue();
        DirectoryClient bb = directory.client("BB");
        assertThat(bb.known()).isFalse();
        assertThat(bb.bucketKey(BY_KEY)).isEqualTo("rl:orders.write:{sha256:" + sha256("BB") + "}");
        assertThat(directory.client("Aa").effective(BY_KEY).source()).isEqualTo("plan:pro");
        assertThat(directory.client("A").known()).as("a shorter key").isFalse();
    }

    @Test
    void aRuleReplacedUnderItsIdGetsTheBucketKeyOfItsKind() {
        DirectoryClient caller = directory.client("t");
        assertThat(caller.bucketKey(BY_KEY)).isEqualTo("rl:orders.write:{sha256:" + sha256("t") + "}");
        Rule sameIdByTenant = Rule.of("orders.write", "/orders/**", KeySpec.TENANT, 10, Duration.ofMinutes(1));
        directory.apply(page(1, List.of(new TenantChange("acme", new TenantEntry("pro", null, Map.of()))),
                List.of(client("t", new ClientEntry("acme", null, null, Map.of())))));
        assertThat(directory.client("t").bucketKey(sameIdByTenant)).isEqualTo("rl:orders.write:{acme}:@");
    }

    private static String sha256(String key) {
        return ClientDigest.of(key);
    }

    private static DirectoryChanges page(long seq, List<TenantChange> tenants, List<ClientChange> clients) {
        return new DirectoryChanges(seq, false, tenants, clients);
    }

    private static ClientChange client(String key, ClientEntry entry) {
        return new ClientChange(ClientDigest.of(key), entry);
    }
}
