package io.tollgate.gateway.clients;

import io.tollgate.counter.CounterKeys;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;

/**
 * The client an API key names, as one request sees it: the key's digest (never the key), its profile and its
 * tenant's terms from one state of the directory (both null for a key the directory does not know). Says which
 * bucket each of its rules keyed {@code api_key} or {@code tenant} counts in and by which policy
 * (docs/clients-plans-tenants.md).
 */
public final class DirectoryClient {

    private final CounterKeys.Client client;
    private final Profile profile;
    /** The hash tag of its buckets: its tenant's id, or its own digest. */
    private final CounterKeys.Client tag;
    private final PlanAndOverrides tenant;
    /** The policies of each rule by plan, as the directory keeps them. */
    private final RuleMemo<RulePolicies> policies;
    /** The state of the directory it was read from. */
    private final DirectoryCopy copy;
    /** The bucket keys of its rules worked out so far: a caller kept by {@link RecentClients} reuses them. */
    private volatile Keys keys;

    DirectoryClient(CounterKeys.Client client, Profile profile, PlanAndOverrides tenant, RuleMemo<RulePolicies> policies,
            DirectoryCopy copy) {
        this.client = client;
        this.profile = profile;
        this.tag = profile != null && profile.tenant() != null ? CounterKeys.readable(profile.tenant()) : client;
        this.tenant = tenant;
        this.policies = policies;
        this.copy = copy;
    }

    /** Whether it was read from {@code state} of the directory. */
    boolean readFrom(DirectoryCopy state) {
        return copy == state;
    }

    /** Its API key as its counter keys carry it: the key's digest. */
    public CounterKeys.Client client() {
        return client;
    }

    /** Whether the directory knows the key. */
    public boolean known() {
        return profile != null;
    }

    /**
     * The hash tag of its buckets: its tenant's id, or its key's digest for a client of its own (or unknown), so
     * the request's {@code api_key} and {@code tenant} buckets live on one shard and go in one script call.
     */
    public String tag() {
        return tag.part();
    }

    /**
     * The bucket of {@code rule} (keyed {@code api_key} or {@code tenant}) for this client: for a client of a
     * tenant, its own under the tenant's hash tag, or the tenant's; for a client of its own (or unknown), its key's.
     */
    public String bucketKey(Rule rule) {
        Keys known = keys;
        for (Keys k = known; k != null; k = k.next) {
            if (k.rule == rule) {
                return k.key;
            }
        }
        String key = newBucketKey(rule);
        // a few rules count by one client; a rule set replaced makes new rules, and the list starts afresh
        keys = new Keys(rule, key, known == null || known.depth >= MAX_KEYS ? null : known);
        return key;
    }

    /** How many bucket keys a caller remembers. */
    private static final int MAX_KEYS = 8;

    private String newBucketKey(Rule rule) {
        if (tag == client) {
            return CounterKeys.key(rule.id(), client);
        }
        if (rule.key().kind() == KeySpec.Kind.TENANT) {
            return CounterKeys.tenantKey(rule.id(), tag);
        }
        return CounterKeys.key(rule.id(), tag, client);
    }

    /**
     * The policy {@code rule} applies to this client: for a rule keyed {@code api_key}, the client's override,
     * else the rule's entry for the client's plan (its own, else its tenant's), else the rule's own; for a rule
     * keyed {@code tenant}, the tenant's override, else the tenant's plan's entry, else the rule's own (a client
     * without a tenant is its own tenant: its plan). Computed ahead, never per request.
     */
    public Effective effective(Rule rule) {
        RulePolicies policies = this.policies.get(rule, RulePolicies::new);
        if (profile == null) {
            return policies.own();
        }
        if (rule.key().kind() == KeySpec.Kind.TENANT) {
            if (profile.tenant() == null) {
                return policies.forPlan(profile.terms().plan());
            }
            Effective override = tenant == null ? null : tenant.override(rule);
            return override != null ? override : policies.forPlan(tenant == null ? null : tenant.plan());
        }
        Effective override = profile.terms().override(rule);
        if (override != null) {
            return override;
        }
        String plan = profile.terms().plan();
        return policies.forPlan(plan != null || tenant == null ? plan : tenant.plan());
    }

    /** Bucket keys by rule (by identity: a rule set replaced makes new rules), newest first. */
    private static final class Keys {

        final Rule rule;
        final String key;
        final Keys next;
        final int depth;

        Keys(Rule rule, String key, Keys next) {
            this.rule = rule;
            this.key = key;
            this.next = next;
            this.depth = next == null ? 1 : next.depth + 1;
        }
    }
}
