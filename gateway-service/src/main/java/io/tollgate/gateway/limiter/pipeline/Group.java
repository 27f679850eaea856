package io.tollgate.gateway.limiter.pipeline;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.counter.CounterKeys;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;

/**
 * The buckets of one request under one hash tag: what one store call decides, all or nothing. Its rules, their
 * client keys, effective policies and buckets are in the same order. A request's enforced and shadow rules are
 * in different groups, so a shadow rule's rejection never costs an enforced one its token.
 */
public final class Group {

    private final String tag;
    private final boolean shadow;
    private final List<Rule> rules;
    private final List<CounterKeys.Client> clients;
    private final List<Effective> effective;
    private final List<Bucket> buckets;
    private boolean leasable;
    /** What the store call asks, in the order of {@link #buckets}: the buckets themselves unless a stage changed it. */
    private final List<Bucket> asked;
    /** Whether the store decides this group without any stage answering it from memory. */
    private final boolean fresh;

    /** An empty group of {@code tag}'s enforced (or shadow) rules. */
    public Group(String tag, boolean shadow) {
        this(tag, shadow, new ArrayList<>(2), new ArrayList<>(2), new ArrayList<>(2), new ArrayList<>(2), !shadow,
                null, false);
    }

    private Group(String tag, boolean shadow, List<Rule> rules, List<CounterKeys.Client> clients,
            List<Effective> effective, List<Bucket> buckets, boolean leasable, List<Bucket> asked, boolean fresh) {
        this.tag = tag;
        this.shadow = shadow;
        this.rules = rules;
        this.clients = clients;
        this.effective = effective;
        this.buckets = buckets;
        this.leasable = leasable;
        this.asked = asked;
        this.fresh = fresh;
    }

    /**
     * Adds a rule's bucket; {@code leasable} says whether this gateway may answer it from a token lease (the group
     * is leasable when every one of its buckets is).
     */
    public void add(Rule rule, CounterKeys.Client client, Effective policy, Bucket bucket, boolean leasable) {
        this.leasable &= leasable;
        rules.add(rule);
        clients.add(client);
        effective.add(policy);
        buckets.add(bucket);
    }

    /**
     * This group asking the store {@code asked} (one per bucket, e.g. a lease's k tokens as a bucket's cost) and
     * decided by the store alone: no stage answers it from memory.
     */
    public Group asking(List<Bucket> asked) {
        return new Group(tag, shadow, rules, clients, effective, buckets, leasable, asked, true);
    }

    /** The hash tag of the group's buckets: what their braces hold. */
    public String tag() {
        return tag;
    }

    /** Whether the group holds a request's shadow rules. */
    public boolean shadow() {
        return shadow;
    }

    public List<Rule> rules() {
        return rules;
    }

    /** The client key each rule counts the request under (a secret only as its digest). */
    public List<CounterKeys.Client> clients() {
        return clients;
    }

    /** The policy each rule applies to the request's client. */
    public List<Effective> effective() {
        return effective;
    }

    public List<Bucket> buckets() {
        return buckets;
    }

    /** Whether every bucket of the group may be answered from this gateway's token leases. */
    public boolean leasable() {
        return leasable;
    }

    /** What the store call asks: the buckets, or what a stage asks instead ({@link #asking}). */
    public List<Bucket> asked() {
        return asked != null ? asked : buckets;
    }

    /** Whether the store decides this group without any stage answering it from memory ({@link #asking}). */
    public boolean fresh() {
        return fresh;
    }
}
