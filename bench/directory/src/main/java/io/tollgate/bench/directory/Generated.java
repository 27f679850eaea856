package io.tollgate.bench.directory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Limits;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.TenantEntry;

/**
 * A generated directory as a real API program's might look: client {@code i} has the API key {@code client-i};
 * 1 in 25 belongs to one of 1,000 tenants (on the enterprise plan, 1 in 10 of them with an override of the
 * tenant rule), 1 in 100 has an override of its own, the rest are on free (3 in 4) or pro.
 */
final class Generated {

    static final int TENANTS = 1_000;
    static final Map<String, Limits> PLANS = Map.of(
            "free", new Limits(10L, null, null),
            "pro", new Limits(1_000L, null, 2_000L),
            "enterprise", new Limits(10_000L, null, null),
            "blocked", new Limits(0L, null, null));
    static final Rule BY_KEY = Rule.of("api.calls", "/api/**", KeySpec.API_KEY, 100, Duration.ofMinutes(1))
            .withPlans(PLANS);
    static final Rule BY_TENANT = Rule.of("api.tenant", "/api/**", KeySpec.TENANT, 5_000, Duration.ofMinutes(1))
            .withPlans(PLANS);

    private Generated() {
    }

    static String key(int i) {
        return "client-" + i;
    }

    /** Page {@code page} of the directory of {@code clients} clients, {@code size} clients a page; tenants first. */
    static DirectoryChanges page(int page, int size, int clients) {
        List<DirectoryChanges.TenantChange> tenants = new ArrayList<>();
        if (page == 0) {
            for (int t = 0; t < TENANTS; t++) {
                Map<String, Limits> overrides = t % 10 == 0 ? Map.of(BY_TENANT.id(), new Limits(50_000L, null, null))
                        : Map.of();
                tenants.add(new DirectoryChanges.TenantChange("tenant-" + t,
                        new TenantEntry("enterprise", "Tenant " + t, overrides)));
            }
        }
        List<DirectoryChanges.ClientChange> changes = new ArrayList<>(size);
        int from = page * size;
        int to = Math.min(clients, from + size);
        for (int i = from; i < to; i++) {
            changes.add(new DirectoryChanges.ClientChange(ClientDigest.of(key(i)), entry(i)));
        }
        return new DirectoryChanges(to, to < clients, tenants, changes);
    }

    static int pages(int size, int clients) {
        return (clients + size - 1) / size;
    }

    private static ClientEntry entry(int i) {
        if (i % 25 == 1) {
            return new ClientEntry("tenant-" + (i % TENANTS), null, null, Map.of());
        }
        if (i % 100 == 0) {
            return new ClientEntry(null, "pro", "contract " + i,
                    Map.of(BY_KEY.id(), new Limits(5_000L + i % 7, null, null)));
        }
        return new ClientEntry(null, i % 4 == 0 ? "pro" : "free", null, Map.of());
    }
}
