package io.tollgate.gateway.clients;

import java.util.Objects;

import io.tollgate.rules.domain.ClientEntry;

/**
 * What the limiter needs of a client: its tenant and its own plan and overrides (labels stay in the rules
 * service). Interned: the million clients of a few plans share a few profiles.
 */
final class Profile {

    private final String tenant;
    private final PlanAndOverrides terms;

    Profile(String tenant, PlanAndOverrides terms) {
        this.tenant = tenant;
        this.terms = terms;
    }

    static Profile of(ClientEntry entry) {
        return new Profile(entry.tenant(), new PlanAndOverrides(entry.plan(), entry.overrides()));
    }

    /** Its tenant, or null: a tenant of its own. */
    String tenant() {
        return tenant;
    }

    /** Its own plan (null: its tenant's) and overrides. */
    PlanAndOverrides terms() {
        return terms;
    }

    /** The entry this profile keeps, without a label. */
    ClientEntry entry() {
        return new ClientEntry(tenant, terms.plan(), null, terms.overrides());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Profile p && Objects.equals(tenant, p.tenant) && terms.equals(p.terms);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(tenant) * 31 + terms.hashCode();
    }
}
