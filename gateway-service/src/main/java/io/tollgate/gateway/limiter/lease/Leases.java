package io.tollgate.gateway.limiter.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * This gateway's token leases, per bucket (the design and its bound: {@link io.tollgate.gateway.limiter.lease}).
 * For a group of buckets that all lease, {@link #admit} answers a request from a live lease of each of them (all or
 * none) without a store call; otherwise {@link #plan} says what the store call asks of each bucket: its cost, or a
 * lease of k tokens when {@link LeasePlanner} says so, and gives back the lease the bucket held before in the same
 * loop turn (the store carries both in one script call). {@link #taken} records the leases the store granted.
 * <p>
 * A lease is only used under the policy it was taken with: a request whose bucket's policy changed (a limit, a
 * plan or an override) closes it and gives its leftover back in its own check's call, ahead of the check. Under a
 * lowered burst the leftover is dropped instead: the bucket is capped below what the lease was taken from, and
 * tokens given back after requests spent under the new cap would fill it again (a request on another event loop
 * can reach the store first). {@link #sweep} gives back the leases that ran out and forgets clients that went
 * quiet. A give-back the store cannot take, and a dropped leftover, count as lost: the tokens were spent, nothing
 * over-admits.
 */
public final class Leases {

    /** Bounds memory under a flood of distinct keys: past it the entries without a lease go. */
    private static final int MAX_ENTRIES = 100_000;
    /** A client not seen for this long is forgotten (its rate has decayed to nothing). */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Every this many sweeps, the quiet clients are forgotten; the other sweeps visit the leases only. */
    private static final int SWEEPS_PER_FORGETTING = 50;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** The entries that hold a lease or owe tokens back: what a sweep visits. */
    private final Set<Entry> holding = ConcurrentHashMap.newKeySet();
    private int sweeps;
    private final GuardedStore store;
    private final LongSupplier nanoClock;
    private final IntSupplier gateways;
    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter[]> counters = new ConcurrentHashMap<>();

    public Leases(GuardedStore store, LongSupplier nanoClock, IntSupplier gateways, MeterRegistry registry) {
        this.store = store;
        this.nanoClock = nanoClock;
        this.gateways = gateways;
        this.registry = registry;
        Gauge.builder("tollgate.leases.tokens.held", this, Leases::held)
                .description("tokens this gateway holds in live leases: spent in the store, not yet admitted")
                .register(registry);
    }

    /**
     * This gateway's entries of one check's buckets, in their order: looked up once, when the check asks to be
     * admitted, and read again by its plan and its answer (a map lookup per bucket, not three).
     */
    public static final class Seen {

        private final Entry[] entries;

        public Seen(int buckets) {
            this.entries = new Entry[buckets];
        }
    }

    /** One bucket as this gateway knows it: its client's rate here, the store's last word and its lease. */
    private static final class Entry {

        final String rule;
        final LocalRate rate = new LocalRate();
        final AtomicBoolean taking = new AtomicBoolean();
        /** Tokens to give back that could not go back into their lease (it closed meanwhile). */
        final AtomicLong toGiveBack = new AtomicLong();
        volatile Bucket bucket;
        final AtomicReference<Lease> lease = new AtomicReference<>();
        /** What the store last said the bucket holds; -1 before it said. */
        volatile long remaining = -1;
        volatile long resetMs;
        volatile long seenNanos;

        Entry(String rule, Bucket bucket) {
            this.rule = rule;
            this.bucket = bucket;
        }
    }

    /**
     * Answers a request from this gateway's leases of every one of {@code buckets}, all or none: the remaining of
     * each (what the store said plus what its lease still holds), or null when any of them has no live lease
     * under its current policy that holds the request's cost; then nothing is spent.
     */
    public Decision[] admit(List<Rule> rules, List<Bucket> buckets, Seen seen) {
        long now = nanoClock.getAsLong();
        Lease[] used = null;
        Entry[] held = null;
        boolean all = true;
        for (int i = 0; i < buckets.size(); i++) {
            Bucket bucket = buckets.get(i);
            Entry entry = entry(rules.get(i).id(), bucket, now);
            seen.entries[i] = entry;
            entry.rate.arrived(now);
            Lease lease = entry.lease.get();
            if (!all || lease == null) {
                all = false;
                continue;
            }
            if (!entry.bucket.policy().equals(bucket.policy())) {
                if (bucket.policy().burst() < entry.bucket.policy().burst()) {
                    drop(entry);
                } else {
                    giveBack(entry, bucket);
                }
                all = false;
                continue;
            }
            if (!lease.tryTake(bucket.policy().cost(), now)) {
                all = false;
                continue;
            }
            if (used == null) {
                used = new Lease[buckets.size()];
                held = new Entry[buckets.size()];
            }
            used[i] = lease;
            held[i] = entry;
        }
        if (!all) {
            if (used != null) {
                refund(rules, buckets, used);
            }
            return null;
        }
        Decision[] out = new Decision[buckets.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new Decision(true, used[i].remaining(), 0, held[i].resetMs);
            counters(rules.get(i).id())[CHECKS].increment();
        }
        return out;
    }

    /**
     * What to ask the store for each of {@code buckets} (one loop turn before the check): the bucket itself, or the
     * same bucket with a lease's k tokens as its cost. Gives back in the same turn the lease each bucket held
     * before (run out or soon replaced). Null when no bucket takes a lease: the check goes as it is.
     */
    public Bucket[] plan(List<Rule> rules, List<Bucket> buckets, Seen seen) {
        long now = nanoClock.getAsLong();
        Bucket[] asked = null;
        int live = gateways.getAsInt();
        for (int i = 0; i < buckets.size(); i++) {
            Bucket bucket = buckets.get(i);
            Entry entry = seen.entries[i];
            if (entry == null || entry.remaining < 0 || !entry.bucket.policy().equals(bucket.policy())
                    || !entry.taking.compareAndSet(false, true)) {
                continue;
            }
            LeasePlanner.Plan plan = LeasePlanner.plan(bucket.policy(), entry.remaining, live,
                    entry.rate.perSecondBefore(now), now);
            if (!plan.leases()) {
                entry.taking.set(false);
                continue;
            }
            giveBack(entry, bucket);
            asked = asked != null ? asked : buckets.toArray(Bucket[]::new);
            asked[i] = new Bucket(bucket.key(), bucket.policy().withCost(plan.tokens()));
        }
        return asked;
    }

    /**
     * The store's answer to a check that asked {@code asked} of {@code buckets}: records what it said of each and
     * the leases it granted; answers the decisions to report, each granted lease already spent for the request at
     * hand. Call also for a check without leases ({@code asked} null): the store's word sizes the next lease.
     */
    public List<Decision> answered(List<Rule> rules, List<Bucket> buckets, Bucket[] asked, List<Decision> said,
            Seen seen) {
        long now = nanoClock.getAsLong();
        List<Decision> out = asked == null ? said : new ArrayList<>(said);
        for (int i = 0; i < buckets.size(); i++) {
            Bucket bucket = buckets.get(i);
            Decision d = said.get(i);
            Entry entry = seen.entries[i];
            entry.seenNanos = now;
            entry.remaining = d.remaining();
            entry.resetMs = d.resetMs();
            entry.bucket = bucket;
            if (asked == null || asked[i] == bucket) {
                continue;
            }
            entry.taking.set(false);
            if (!d.allowed()) {
                continue;
            }
            long tokens = asked[i].policy().cost();
            long expires = now + LeasePlanner.leaseNanos(bucket.policy(), d.remaining() + tokens);
            Lease lease = new Lease(tokens, d.remaining(), expires);
            lease.tryTake(bucket.policy().cost(), now);
            Lease before = entry.lease.getAndSet(lease);
            holding.add(entry);
            if (before != null) {
                returnLeftover(entry, bucket, before.leftover()); // none is expected: the take gave it back
            }
            Counter[] c = counters(rules.get(i).id());
            c[TAKEN].increment();
            c[LEASED].increment(tokens);
            out.set(i, new Decision(true, lease.remaining(), 0, d.resetMs()));
        }
        return out;
    }

    /** A check that asked for leases ({@code asked}) did not get its answer: the next request may try again. */
    public void unanswered(List<Bucket> buckets, Bucket[] asked, Seen seen) {
        for (int i = 0; i < buckets.size(); i++) {
            if (asked[i] != buckets.get(i)) {
                seen.entries[i].taking.set(false);
            }
        }
    }

    /** How often leases that ran out are given back. */
    private static final long SWEEP_MS = 100;

    /** Sweeps every {@value #SWEEP_MS} ms on {@code vertx}'s timer, for as long as it runs. */
    public void sweepEvery(Vertx vertx) {
        vertx.setPeriodic(SWEEP_MS, t -> sweep());
    }

    /**
     * Gives back every lease that ran out, and forgets clients that went quiet (and, past the bound on memory,
     * every client without a lease). Run every so often.
     */
    void sweep() {
        long now = nanoClock.getAsLong();
        for (Entry entry : holding) {
            Lease lease = entry.lease.get();
            if (lease == null || lease.over(now)) {
                giveBack(entry, entry.bucket);
            }
        }
        boolean crowded = entries.size() > MAX_ENTRIES;
        if (++sweeps % SWEEPS_PER_FORGETTING != 0 && !crowded) {
            return;
        }
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Entry entry = e.getValue();
            if (entry.lease.get() == null && !entry.taking.get()
                    && (crowded || now - entry.seenNanos > IDLE_NANOS)) {
                entries.remove(e.getKey(), entry);
            }
        }
    }

    /** Closes {@code entry}'s lease without giving its leftover back: counted as lost. */
    private void drop(Entry entry) {
        holding.remove(entry);
        Lease lease = entry.lease.getAndSet(null);
        long tokens = (lease == null ? 0 : lease.leftover()) + entry.toGiveBack.getAndSet(0);
        if (tokens > 0) {
            counters(entry.rule)[LOST].increment(tokens);
        }
    }

    private Entry entry(String rule, Bucket bucket, long now) {
        Entry entry = entries.get(bucket.key());
        if (entry == null) {
            entry = entries.computeIfAbsent(bucket.key(), k -> new Entry(rule, bucket));
        }
        entry.seenNanos = now;
        return entry;
    }

    /**
     * Closes {@code entry}'s lease and gives back what it holds, with what refunds owe it, as a settlement of
     * {@code bucket} (the store carries it with the loop's other calls).
     */
    private void giveBack(Entry entry, Bucket bucket) {
        holding.remove(entry); // first: a lease set meanwhile adds its entry again after
        Lease lease = entry.lease.getAndSet(null);
        returnLeftover(entry, bucket, lease == null ? 0 : lease.leftover());
    }

    /** Gives {@code tokens} and what refunds owe {@code entry} back to the store, as a settlement of {@code bucket}. */
    private void returnLeftover(Entry entry, Bucket bucket, long leftover) {
        long tokens = leftover + entry.toGiveBack.getAndSet(0);
        if (tokens == 0) {
            return;
        }
        Counter[] c = counters(entry.rule);
        Future<List<Decision>> settled = store.settle(List.of(bucket), List.of(-tokens));
        settled.onComplete(result -> c[result.succeeded() ? RETURNED : LOST].increment(tokens));
    }

    /** Puts back the cost a request took from the leases in {@code used} (not all of its buckets had one). */
    private void refund(List<Rule> rules, List<Bucket> buckets, Lease[] used) {
        for (int i = 0; i < used.length; i++) {
            if (used[i] == null) {
                continue;
            }
            long cost = buckets.get(i).policy().cost();
            if (!used[i].refund(cost)) {
                // the lease closed meanwhile, its leftover given back without this cost: it goes back next
                Entry entry = entry(rules.get(i).id(), buckets.get(i), nanoClock.getAsLong());
                entry.toGiveBack.addAndGet(cost);
                holding.add(entry); // the next sweep gives it back
            }
        }
    }

    /** Tokens held in live leases now. */
    private double held() {
        long now = nanoClock.getAsLong();
        long sum = 0;
        for (Entry entry : holding) {
            Lease lease = entry.lease.get();
            if (lease != null && !lease.over(now)) {
                sum += lease.left();
            }
        }
        return sum;
    }

    private static final int TAKEN = 0;
    private static final int LEASED = 1;
    private static final int RETURNED = 2;
    private static final int LOST = 3;
    private static final int CHECKS = 4;

    /** {@code tollgate_leases_*} of one rule, registered on its first lease. */
    private Counter[] counters(String rule) {
        Counter[] c = counters.get(rule);
        if (c != null) {
            return c;
        }
        return counters.computeIfAbsent(rule, id -> new Counter[]{
                counter("tollgate.leases.taken", "leases taken: one store call that spent k tokens", id),
                counter("tollgate.leases.tokens.leased", "tokens spent in the store by leases", id),
                counter("tollgate.leases.tokens.returned", "tokens leases gave back unused", id),
                counter("tollgate.leases.tokens.lost",
                        "tokens leases could not give back (the store did not answer): spent, never admitted", id),
                counter("tollgate.leases.checks", "requests admitted from a lease, without a store call", id)});
    }

    private Counter counter(String name, String description, String rule) {
        return Counter.builder(name).description(description).tag("rule", rule).register(registry);
    }
}
