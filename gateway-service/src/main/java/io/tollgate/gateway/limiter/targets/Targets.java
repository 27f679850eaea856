package io.tollgate.gateway.limiter.targets;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.gateway.clients.DirectoryClient;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.lease.TokenLeasing;
import io.tollgate.gateway.limiter.pipeline.Group;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.http.HttpServerRequest;

/**
 * Turns a request and the rules that match it into the buckets to ask: each rule's client key (a secret, an API key
 * or a {@code header:} value, becomes its digest, made once per request; an address or {@code global} is kept as it
 * reads), for rules keyed {@code api_key} or {@code tenant} the client in the {@link Directory} (looked up once per
 * request) with the policy the rule applies to it, the counter key and the policy of each bucket; grouped by hash
 * tag (one shard: a client of a tenant shares its tenant's), enforced and shadow rules apart. Reads memory only.
 */
public final class Targets {

    /** Concurrency slot ids are whole numbers from 1 to this, as the check script takes them. */
    private static final long MAX_SLOT_ID = 1_000_000_000_000L;

    private final KeyResolver keys;
    private final Directory directory;
    private final CalendarWindows calendars;
    /** Whether this gateway leases tokens ({@code tollgate.leases.enabled}). */
    private final boolean leases;

    public Targets(KeyResolver keys, Directory directory, CalendarWindows calendars, boolean leases) {
        this.keys = keys;
        this.directory = directory;
        this.calendars = calendars;
        this.leases = leases;
    }

    /** What {@code request} asks of {@code rules} (the enabled rules that match it). */
    public Asks asks(List<Rule> rules, HttpServerRequest request) {
        List<Group> groups = new ArrayList<>(2);
        DirectoryClient caller = null; // the API key's client, looked up (and its key digested) once
        LastSecret secrets = new LastSecret();
        List<RuleDecision> blocked = List.of();
        List<CounterKeys.Client> blockedClients = List.of();
        for (Rule rule : rules) {
            Optional<String> value = keys.resolve(rule.key(), request);
            if (value.isEmpty()) {
                if (rule.missingKey() == MissingKey.REJECT) {
                    return new Asks(Verdict.missing(keys.missing(rule.key())), List.of(), List.of(), List.of());
                }
                continue;
            }
            Target target;
            CounterKeys.Client client;
            if (Directory.applies(rule)) {
                caller = caller != null ? caller : directory.client(value.get());
                client = caller.client();
                target = target(rule, client, caller);
            } else {
                client = clientKey(rule.key(), value.get(), secrets);
                target = target(rule, client, null);
            }
            Effective effective = target.effective();
            if (effective.blocks()) {
                blocked = blocked.isEmpty() ? new ArrayList<>(1) : blocked;
                blockedClients = blockedClients.isEmpty() ? new ArrayList<>(1) : blockedClients;
                blocked.add(RuleDecision.of(rule, effective, blockedFor(effective),
                        rule.shadow() ? Outcome.SHADOW_REJECTED : Outcome.BLOCKED));
                blockedClients.add(client);
                continue;
            }
            find(groups, target.tag(), rule.shadow()).add(rule, client, effective, target.bucket(),
                    leases && TokenLeasing.leasable(rule, target.bucket()));
        }
        return new Asks(null, groups, blocked, blockedClients);
    }

    /**
     * What {@code rule} counts a request of client key {@code value} (as sent: an API key, a header's value, an
     * address) by: its effective policy, its bucket and the hash tag the bucket is stored under; as a check of
     * that request would. Reads the directory only: no store call.
     */
    public Target target(Rule rule, String value) {
        if (Directory.applies(rule)) {
            DirectoryClient caller = directory.client(value);
            return target(rule, caller.client(), caller);
        }
        return target(rule, clientKey(rule.key(), value, null), null);
    }

    /**
     * The client key {@code spec}'s buckets carry for {@code value}: a secret (an API key, a tenant's key, a
     * {@code header:} value) as its digest, never as sent; an address or {@code global} as it reads, when safe.
     * The one place that decides which is which.
     *
     * @param last the request's last secret digested, reused when the same (null: digest)
     */
    static CounterKeys.Client clientKey(KeySpec spec, String value, LastSecret last) {
        return switch (spec.kind()) {
            case API_KEY, TENANT, HEADER -> last == null ? CounterKeys.secret(value) : last.digest(value);
            case IP, GLOBAL -> CounterKeys.readable(value);
        };
    }

    /** The secret a request digested last, so rules that count by one header digest it once. */
    static final class LastSecret {

        private String value;
        private CounterKeys.Client key;

        CounterKeys.Client digest(String secret) {
            if (!secret.equals(value)) {
                value = secret;
                key = CounterKeys.secret(secret);
            }
            return key;
        }
    }

    /**
     * As {@link #target(Rule, String)}, with the client key made and, for a rule that counts by client of the
     * directory, the API key's client looked up ({@code caller}; null for a rule keyed otherwise).
     */
    private Target target(Rule rule, CounterKeys.Client client, DirectoryClient caller) {
        boolean byClient = caller != null;
        Effective effective = byClient ? caller.effective(rule) : directory.own(rule);
        String key = byClient ? caller.bucketKey(rule) : CounterKeys.key(rule.id(), client);
        Bucket bucket;
        if (effective.blocks()) {
            bucket = new Bucket(key, effective.policy());
        } else if (rule.calendar() != null) {
            bucket = calendars.bucket(rule, key, effective);
        } else if (rule.algorithm() == Algorithm.CONCURRENCY) {
            // each request's slot is its own, named by a random id (a clash among a client's few slots in flight is
            // about one in 1e12 / slots)
            bucket = new Bucket(key, Policy.slot(effective.limit(), rule.slotTtl().toMillis(),
                    ThreadLocalRandom.current().nextLong(1, MAX_SLOT_ID + 1)));
        } else {
            bucket = new Bucket(key, effective.policy());
        }
        return new Target(effective, bucket, byClient ? caller.tag() : client.part());
    }

    /** The group of {@code tag}'s enforced (or shadow) rules in {@code groups}, added when new. */
    private static Group find(List<Group> groups, String tag, boolean shadow) {
        for (Group group : groups) {
            if (group.shadow() == shadow && group.tag().equals(tag)) {
                return group;
            }
        }
        Group group = new Group(tag, shadow);
        groups.add(group);
        return group;
    }

    /** A rejection by a policy of limit 0: it never frees, so the client is told to come back after a period. */
    private static Decision blockedFor(Effective effective) {
        long periodMs = effective.period().toMillis();
        return new Decision(false, 0, periodMs, periodMs);
    }
}
