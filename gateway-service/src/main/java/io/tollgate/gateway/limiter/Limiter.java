package io.tollgate.gateway.limiter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

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
import io.tollgate.gateway.limiter.guard.FailurePolicy;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.limiter.lease.LeasePlanner;
import io.tollgate.gateway.limiter.lease.Leases;
import io.tollgate.gateway.limiter.rejection.RejectedClients;
import io.tollgate.gateway.limiter.rejection.RejectionCache;
import io.tollgate.gateway.limiter.settlement.Settlement;
import io.tollgate.gateway.limiter.settlement.Settlements;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;

/**
 * Decides one request: resolves each matching rule's client key (a secret, an API key or a {@code header:} value,
 * becomes its digest, worked out once per request) and, for rules keyed {@code api_key} or
 * {@code tenant}, the client in the {@link Directory} (looked up once per request) with the policy the rule
 * applies to it; groups the rules by hash tag (one shard: a client of a tenant shares its tenant's), answers
 * remembered rejections from memory, and makes ONE store call per group, all-or-nothing across that client's
 * and its tenant's rules. A rule whose policy for the client has limit 0 rejects at once, with no store call.
 * Shadow rules are checked in a group of their own so their rejections never cost an enforced rule its token.
 * A group whose rules all lease is answered from this gateway's token {@link Leases} when it holds one for each of
 * its buckets (no store call), and its store call takes a lease of a busy client's bucket when the planner says so.
 * The answer completes on whichever thread the store answered on (the request's own loop, with the pinned
 * Redis connection); the HTTP edge writes it there.
 */
public class Limiter {

    /** Lease ids are whole numbers from 1 to this, as the check script takes them. */
    private static final long MAX_LEASE_ID = 1_000_000_000_000L;

    private final KeyResolver keys;
    private final Directory directory;
    private final GuardedStore store;
    private final FailurePolicy failure;
    private final RejectionCache rejections;
    private final CalendarWindows calendars;
    private final DecisionMetrics metrics;
    private final RejectedClients rejectedClients;
    private final Settlements settlements;
    /** This gateway's token leases; null when {@code tollgate.leases.enabled} is false. */
    private final Leases leases;

    /** Built by {@link LimiterWiring}. */
    Limiter(KeyResolver keys, Directory directory, GuardedStore store, FailurePolicy failure,
            RejectionCache rejections, CalendarWindows calendars, DecisionMetrics metrics,
            RejectedClients rejectedClients, Settlements settlements, Leases leases) {
        this.keys = keys;
        this.directory = directory;
        this.store = store;
        this.failure = failure;
        this.rejections = rejections;
        this.calendars = calendars;
        this.metrics = metrics;
        this.rejectedClients = rejectedClients;
        this.settlements = settlements;
        this.leases = leases;
    }

    /** The verdict on {@code request} under {@code rules} (the enabled rules that match it). */
    public Future<Verdict> check(List<Rule> rules, HttpServerRequest request) {
        List<Group> groups = new ArrayList<>(2);
        DirectoryClient caller = null; // the API key's client, looked up (and its key digested) once, when a rule counts by it
        String secret = null; // the last header value digested, so rules that count by one header digest it once
        CounterKeys.Client secretKey = null;
        List<RuleDecision> blocked = null;
        List<CounterKeys.Client> blockedClients = null; // the client key of each of blocked, in the same order
        for (Rule rule : rules) {
            Optional<String> value = keys.resolve(rule.key(), request);
            if (value.isEmpty()) {
                if (rule.missingKey() == MissingKey.REJECT) {
                    return Future.succeededFuture(Verdict.missing(keys.missing(rule.key())));
                }
                continue;
            }
            CounterKeys.Client client;
            boolean byClient = Directory.applies(rule);
            if (byClient) {
                caller = caller != null ? caller : directory.client(value.get());
                client = caller.client();
            } else if (rule.key().kind() == KeySpec.Kind.HEADER) {
                if (!value.get().equals(secret)) {
                    secret = value.get();
                    secretKey = CounterKeys.secret(secret);
                }
                client = secretKey;
            } else {
                client = CounterKeys.readable(value.get());
            }
            Target target = target(rule, client, byClient ? caller : null);
            Effective effective = target.effective();
            if (effective.blocks()) {
                blocked = blocked != null ? blocked : new ArrayList<>(1);
                blocked.add(RuleDecision.of(rule, effective, blockedFor(effective),
                        rule.shadow() ? Outcome.SHADOW_REJECTED : Outcome.BLOCKED));
                blockedClients = blockedClients != null ? blockedClients : new ArrayList<>(1);
                blockedClients.add(client);
                continue;
            }
            Group group = Group.find(groups, target.tag(), rule.shadow());
            group.add(rule, client, effective, target.bucket(), leases != null);
        }
        if (blocked != null && !passes(blocked)) {
            reportBlocked(blocked, blockedClients);
            return Future.succeededFuture(verdict(blocked)); // no store call: nothing is spent
        }
        List<RuleDecision> shadowBlocked = blocked == null ? List.of() : blocked;
        if (groups.isEmpty()) {
            return Future.succeededFuture(verdict(shadowBlocked));
        }
        if (groups.size() == 1 && blocked == null) {
            return check(groups.get(0)).map(this::verdict);
        }
        List<RuleDecision> refused = rememberedRefusal(groups);
        if (refused != null) {
            // refused whatever the other groups would say: none of them is asked, so none spends
            refused.addAll(0, shadowBlocked);
            return Future.succeededFuture(verdict(refused));
        }
        List<Future<List<RuleDecision>>> checks = new ArrayList<>(groups.size());
        for (Group group : groups) {
            checks.add(check(group));
        }
        // a group's check never fails (store failures become fallback decisions), so all() waits for each
        return Future.all(checks).map(all -> {
            List<RuleDecision> decisions = new ArrayList<>(rules.size());
            decisions.addAll(shadowBlocked);
            for (Future<List<RuleDecision>> check : checks) {
                decisions.addAll(check.result());
            }
            Verdict verdict = verdict(decisions);
            if (!verdict.allowed()) {
                // each group is all or nothing on its own: what the others spent goes back
                settlements.giveBack(decisions);
            }
            return verdict;
        });
    }

    /**
     * What the request of {@code verdict} owes the store once its answer ends: settlements and leases; null when
     * nothing (most requests). Its leases are renewed only while {@code live} says its exchange is.
     */
    public Settlement settlementOf(Verdict verdict, BooleanSupplier live) {
        return settlements.open(verdict, live);
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
        return target(rule, clientKey(rule.key(), value), null);
    }

    /**
     * The client key {@code rule}'s buckets carry for {@code value}: a secret (an API key, a {@code header:}
     * value) as its digest, never as sent; an address or {@code global} as it reads, when safe.
     */
    static CounterKeys.Client clientKey(KeySpec spec, String value) {
        return switch (spec.kind()) {
            case API_KEY, TENANT, HEADER -> CounterKeys.secret(value);
            case IP, GLOBAL -> CounterKeys.readable(value);
        };
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
            // each request's lease is its own, named by a random id (a clash among a client's few leases in
            // flight is about one in 1e12 / slots)
            bucket = new Bucket(key, Policy.lease(effective.limit(), rule.lease().toMillis(),
                    ThreadLocalRandom.current().nextLong(1, MAX_LEASE_ID + 1)));
        } else {
            bucket = new Bucket(key, effective.policy());
        }
        return new Target(effective, bucket, byClient ? caller.tag() : client.part());
    }

    /**
     * Forgets what this gateway remembers of {@code bucket}'s rejections (its bucket was reset): its next request
     * goes to the store. Other gateways keep what they remember until its retry time.
     */
    public void forgetRejection(Bucket bucket) {
        rejections.forget(bucket.key());
    }

    /**
     * The policy a rule applies to a client and the bucket it counts in.
     *
     * @param tag the hash tag of the bucket (what its braces hold: a secret's digest, never the secret): the
     * buckets of one tag go to the store in one script call
     */
    public record Target(Effective effective, Bucket bucket, String tag) {
    }

    private static boolean passes(List<RuleDecision> decisions) {
        for (RuleDecision d : decisions) {
            if (!d.outcome().passes()) {
                return false;
            }
        }
        return true;
    }

    /** The clients of a request a policy of limit 0 refused: its 429 is a rejection as any other, which top names. */
    private void reportBlocked(List<RuleDecision> blocked, List<CounterKeys.Client> clients) {
        for (int i = 0; i < blocked.size(); i++) {
            RuleDecision d = blocked.get(i);
            if (d.outcome() == Outcome.BLOCKED && DecisionMetrics.counted(d.rule())) {
                rejectedClients.rejected(d.rule().id(), clients.get(i));
            }
        }
    }

    /** A rejection by a policy of limit 0: it never frees, so the client is told to come back after a period. */
    private static Decision blockedFor(Effective effective) {
        long periodMs = effective.period().toMillis();
        return new Decision(false, 0, periodMs, periodMs);
    }

    private Verdict verdict(List<RuleDecision> decisions) {
        for (RuleDecision decision : decisions) {
            metrics.count(decision);
        }
        return Verdict.of(decisions);
    }

    private Future<List<RuleDecision>> check(Group group) {
        Bucket[] asked = null;
        if (group.leases) {
            // before the remembered rejections: a lease's last tokens leave the store's bucket below a request
            Decision[] leased = leases.admit(group.rules, group.buckets);
            if (leased != null) {
                return Future.succeededFuture(leased(group, leased));
            }
            asked = leases.plan(group.rules, group.buckets);
        }
        if (!group.shadow && asked == null) {
            List<RuleDecision> cached = cachedRejections(group);
            if (!cached.isEmpty()) {
                return Future.succeededFuture(cached);
            }
        }
        if (asked != null) {
            return leasing(group, asked);
        }
        return store.check(group.buckets).transform(result -> Future.succeededFuture(result.succeeded()
                ? ruleDecisions(group, group.leases
                        ? leases.answered(group.rules, group.buckets, null, result.result())
                        : result.result())
                : failedOver(group, result.cause())));
    }

    /**
     * A check that asks the store for a lease of some of {@code group}'s buckets ({@code asked}: k tokens as their
     * cost). When the store cannot give them all (another gateway spent meanwhile), nothing was spent and the
     * request is checked alone.
     */
    private Future<List<RuleDecision>> leasing(Group group, Bucket[] asked) {
        return store.check(Arrays.asList(asked)).transform(result -> {
            if (result.failed()) {
                leases.unanswered(group.buckets, asked);
                return Future.succeededFuture(failedOver(group, result.cause()));
            }
            List<Decision> said = result.result();
            for (Decision d : said) {
                if (!d.allowed()) {
                    leases.unanswered(group.buckets, asked);
                    return store.check(group.buckets).transform(alone -> Future.succeededFuture(alone.succeeded()
                            ? ruleDecisions(group, leases.answered(group.rules, group.buckets, null, alone.result()))
                            : failedOver(group, alone.cause())));
                }
            }
            return Future.succeededFuture(ruleDecisions(group, leases.answered(group.rules, group.buckets, asked, said)));
        });
    }

    /** The decisions of a request admitted from this gateway's leases of each of {@code group}'s buckets. */
    private List<RuleDecision> leased(Group group, Decision[] decisions) {
        List<RuleDecision> out = new ArrayList<>(decisions.length);
        for (int i = 0; i < decisions.length; i++) {
            out.add(new RuleDecision(group.rules.get(i), decisions[i], Outcome.LEASED, false,
                    group.effective.get(i), group.buckets.get(i), group.tag));
        }
        return out;
    }

    private List<RuleDecision> failedOver(Group group, Throwable why) {
        if (group.shadow) {
            return failure.decide(group.rules, group.effective, group.buckets, why);
        }
        group.buckets.forEach(b -> rejections.forget(b.key())); // a probe's mark must not outlive it
        List<RuleDecision> decided = failure.decide(group.rules, group.effective, group.buckets, why);
        for (int i = 0; i < decided.size(); i++) {
            // a 429 of the failure mode is a rejection its client saw: top names it as any other
            if (!decided.get(i).outcome().passes() && DecisionMetrics.counted(group.rules.get(i))) {
                rejectedClients.rejected(group.rules.get(i).id(), group.clients.get(i));
            }
        }
        if (why instanceof GuardedStore.TimedOut slow) {
            slow.late().onSuccess(said -> answeredLate(group, decided, said));
        }
        return decided;
    }

    /**
     * The store's answer to a check the failure mode already decided: what it says of each bucket is remembered
     * as from any answer, and when the store rejected a request the failure mode let through, that is an
     * over-admission, counted per rejecting rule.
     */
    private void answeredLate(Group group, List<RuleDecision> decided, List<Decision> said) {
        remember(group, said);
        giveBackLateLeases(group, said);
        boolean admitted = true;
        for (RuleDecision d : decided) {
            admitted &= d.outcome().passes();
        }
        if (!admitted) {
            return;
        }
        for (int i = 0; i < said.size(); i++) {
            if (!said.get(i).allowed()) {
                metrics.overadmitted(group.rules.get(i));
            }
        }
    }

    /**
     * The {@code concurrency} leases a late answer says the store took: the failure mode decided the request without
     * them, so no exchange holds them, and each goes back now rather than holding its slot for a lease time.
     */
    private void giveBackLateLeases(Group group, List<Decision> said) {
        for (int i = 0; i < said.size(); i++) {
            Bucket bucket = group.buckets.get(i);
            if (said.get(i).allowed() && bucket.policy().algorithm() == Algorithm.CONCURRENCY) {
                store.release(bucket);
            }
        }
    }

    /** What the store said of each bucket of {@code group}, in an answer that arrived just now. */
    private void remember(Group group, List<Decision> said) {
        for (int i = 0; i < said.size(); i++) {
            Decision d = said.get(i);
            Bucket bucket = group.buckets.get(i);
            failure.heard(bucket, d);
            if (d.allowed()) {
                rejections.allowed(bucket, d.remaining(), d.resetMs());
            } else {
                rejections.rejected(bucket, d.retryAfterMs());
            }
        }
    }

    /**
     * The remembered rejections of this group (also while another request probes a bucket whose rejection
     * ran out or whose last token went); empty when the store decides, this request being the probe.
     */
    private List<RuleDecision> cachedRejections(Group group) {
        long[] waits = rejections.admit(group.buckets);
        return waits == null ? List.of() : cached(group, waits);
    }

    /**
     * Of a request checked in several groups (rules of different clients), the cached rejections of the first
     * group this gateway remembers rejected, which refuse it before any group goes to the store; null when no
     * group's rejection is remembered. Groups on leases and shadow groups are left to their own check.
     */
    private List<RuleDecision> rememberedRefusal(List<Group> groups) {
        for (Group group : groups) {
            if (!group.shadow && !group.leases) {
                long[] waits = rejections.remembered(group.buckets);
                if (waits != null) {
                    return cached(group, waits);
                }
            }
        }
        return null;
    }

    /** The decisions of {@code group}'s buckets that {@code waits} (ms, 0 for none) keeps back. */
    private List<RuleDecision> cached(Group group, long[] waits) {
        List<RuleDecision> out = new ArrayList<>(1);
        for (int i = 0; i < waits.length; i++) {
            if (waits[i] > 0) {
                if (DecisionMetrics.counted(group.rules.get(i))) {
                    rejectedClients.rejected(group.rules.get(i).id(), group.clients.get(i));
                }
                out.add(RuleDecision.of(group.rules.get(i), group.effective.get(i),
                        new Decision(false, 0, waits[i], waits[i]), Outcome.CACHED_REJECTED));
            }
        }
        return out;
    }

    private List<RuleDecision> ruleDecisions(Group group, List<Decision> decisions) {
        failure.storeAnswered();
        if (!group.shadow) {
            remember(group, decisions);
        }
        List<RuleDecision> out = new ArrayList<>(decisions.size());
        for (int i = 0; i < decisions.size(); i++) {
            Decision d = decisions.get(i);
            Outcome outcome = d.allowed()
                    ? Outcome.ALLOWED
                    : group.shadow ? Outcome.SHADOW_REJECTED : Outcome.REJECTED;
            if (outcome == Outcome.REJECTED && DecisionMetrics.counted(group.rules.get(i))) {
                rejectedClients.rejected(group.rules.get(i).id(), group.clients.get(i));
            }
            out.add(new RuleDecision(group.rules.get(i), d, outcome, false, group.effective.get(i),
                    group.buckets.get(i), group.tag));
        }
        return out;
    }

    /** The rules of one hash tag, with their effective policies and buckets in the same order. */
    private static final class Group {

        final String tag;
        final boolean shadow;
        final List<Rule> rules = new ArrayList<>(2);
        final List<CounterKeys.Client> clients = new ArrayList<>(2);
        final List<Effective> effective = new ArrayList<>(2);
        final List<Bucket> buckets = new ArrayList<>(2);
        /** Whether every rule of the group may lease its bucket on this gateway. */
        boolean leases = true;

        Group(String tag, boolean shadow) {
            this.tag = tag;
            this.shadow = shadow;
        }

        /** The group of {@code tag}'s enforced (or shadow) rules in {@code groups}, added when new. */
        static Group find(List<Group> groups, String tag, boolean shadow) {
            for (Group group : groups) {
                if (group.shadow == shadow && group.tag.equals(tag)) {
                    return group;
                }
            }
            Group group = new Group(tag, shadow);
            groups.add(group);
            return group;
        }

        void add(Rule rule, CounterKeys.Client client, Effective policy, Bucket bucket, boolean leasing) {
            leases &= leasing && !shadow && rule.leases() && rule.calendar() == null
                    && LeasePlanner.leasable(bucket.policy());
            rules.add(rule);
            clients.add(client);
            effective.add(policy);
            buckets.add(bucket);
        }
    }
}
