package io.tollgate.counter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code check} script over an in-process map: the same decisions, all or nothing across the
 * keys of one call, for one process (the gateway's memory store, and tests); the same settlements
 * ({@link #settle}) and concurrency slots, given back by {@link #releaseSlot} as the gateway's {@code ZREM} does.
 * <p>
 * Thread-safe: calls are serialised per hash tag (the keys of one call share one, as on Redis), so
 * different clients proceed in parallel. A key is forgotten once it would be full again (a concurrency key: once
 * its last slot ends), as Redis expires it, so memory stays bounded by the active clients. The clock is the
 * caller's {@code nowMicros}: no hidden time source.
 */
public final class InMemoryCounters {

    private static final int STRIPES = 64;

    /** How many checks pass between two sweeps of forgotten keys. */
    private static final long SWEEP_EVERY = 4096;

    private final Map<String, BucketState> states = new ConcurrentHashMap<>();
    private final Object[] locks = new Object[STRIPES];
    private final AtomicLong checks = new AtomicLong();

    /** An empty store. */
    public InMemoryCounters() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    /**
     * Checks buckets {@code keys[i]} under {@code policies[i]}, spending each policy's cost from its bucket
     * only if every one allows; the decisions are those the Lua script gives for the same arguments.
     * As for Redis, the keys of one call must share one hash tag (one client): that tag's lock makes
     * the call atomic.
     *
     * @param nowMicros
     * Unix time in microseconds
     */
    public List<Decision> check(List<String> keys, List<Policy> policies, long nowMicros) {
        if (keys.isEmpty() || keys.size() != policies.size()) {
            throw new IllegalArgumentException("need one policy per key and at least one key, got " + keys.size()
                    + " keys, " + policies.size() + " policies");
        }
        List<Decision> decisions;
        synchronized (lockFor(keys.get(0))) {
            decisions = decideAll(keys, policies, nowMicros);
        }
        if (checks.incrementAndGet() % SWEEP_EVERY == 0) {
            forgetExpired(nowMicros);
        }
        return decisions;
    }

    /** As {@link #check(List, List, long)}, every check spending {@code cost} whatever its policy says. */
    public List<Decision> check(List<String> keys, List<Policy> policies, long cost, long nowMicros) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        return check(keys, policies.stream().map(p -> p.withCost(cost)).toList(), nowMicros);
    }

    /**
     * Settles buckets {@code keys[i]} under {@code policies[i]} by {@code deltas[i]} (what a request really used
     * less what its check spent): a positive delta is spent whatever the bucket holds (it may go into debt), a
     * negative one given back (never above the capacity), 0 changes nothing. Every key is written and answers
     * allowed, as the Lua script answers {@link CheckCall#settle} with the same arguments.
     *
     * A concurrency key is settled only by -1, its slot (the policy's) given back as {@link #releaseSlot} does, or by
     * 0, its slot renewed when live.
     *
     * @throws IllegalArgumentException
     * for a concurrency policy settled by other than -1, before anything is written
     */
    public List<Decision> settle(List<String> keys, List<Policy> policies, List<Long> deltas, long nowMicros) {
        if (keys.isEmpty() || keys.size() != policies.size() || keys.size() != deltas.size()) {
            throw new IllegalArgumentException("need one policy and one delta per key and at least one key, got "
                    + keys.size() + " keys, " + policies.size() + " policies, " + deltas.size() + " deltas");
        }
        CheckCall.checkSettled(policies, deltas);
        List<Decision> decisions = new ArrayList<>(keys.size());
        synchronized (lockFor(keys.get(0))) {
            for (int i = 0; i < keys.size(); i++) {
                Policy policy = policies.get(i);
                Step step = CounterModel.of(policy.algorithm()).settle(states.get(keys.get(i)), policy, nowMicros,
                        deltas.get(i));
                if (policy.algorithm() == Algorithm.CONCURRENCY && deltas.get(i) == -1) {
                    releaseLocked(keys.get(i), policy.slotId()); // its slot, given back
                } else if (policy.algorithm() == Algorithm.CONCURRENCY) {
                    if (step.next() != null) {
                        states.put(keys.get(i), step.next()); // its slot, renewed when it was live
                    }
                } else if (step.next() != null) {
                    states.put(keys.get(i), step.next());
                }
                decisions.add(step.decision());
            }
        }
        return decisions;
    }

    /**
     * Gives slot {@code slotId} of concurrency bucket {@code key} back, as the gateway's {@code ZREM} does on Redis;
     * whether the key held it (live or expired but not yet dropped). The last slot released forgets the key.
     */
    public boolean releaseSlot(String key, long slotId) {
        synchronized (lockFor(key)) {
            return releaseLocked(key, slotId);
        }
    }

    private boolean releaseLocked(String key, long slotId) {
        if (states.get(key) instanceof ConcurrencyModel.State slots && slots.slots().containsKey(slotId)) {
            BucketState left = slots.release(slotId);
            if (left == null) {
                states.remove(key);
            } else {
                states.put(key, left);
            }
            return true;
        }
        return false;
    }

    /**
     * What bucket {@code key} holds at {@code nowMicros} under {@code policy}, spending nothing and changing
     * nothing: what the Lua {@code peek} answers for the same state. A state that would be forgotten by now
     * counts as absent (Redis would have dropped its key).
     */
    public Peek peek(String key, Policy policy, long nowMicros) {
        return CounterModel.of(policy.algorithm()).peek(live(states.get(key), nowMicros), policy, nowMicros);
    }

    /**
     * Forgets bucket {@code key}, so it is full again (as Redis {@code DEL}); whether it held a state that
     * counted at {@code nowMicros}. Under the key's lock, so a check of that client runs wholly before or after.
     */
    public boolean reset(String key, long nowMicros) {
        BucketState removed;
        synchronized (lockFor(key)) {
            removed = states.remove(key);
        }
        return live(removed, nowMicros) != null;
    }

    /** How many keys are held (forgotten ones excluded once swept). */
    public int size() {
        return states.size();
    }

    /** Drops every key that would be full again (or whose window is over) at {@code nowMicros}. */
    public void forgetExpired(long nowMicros) {
        // remove(key, state) removes only the state we saw, so a concurrent write is never lost
        states.forEach((key, state) -> {
            if (live(state, nowMicros) == null) {
                states.remove(key, state);
            }
        });
    }

    private List<Decision> decideAll(List<String> keys, List<Policy> policies, long nowMicros) {
        List<Step> steps = new ArrayList<>(keys.size());
        boolean allAllowed = true;
        for (int i = 0; i < keys.size(); i++) {
            Policy policy = policies.get(i);
            Step step = CounterModel.of(policy.algorithm()).decide(states.get(keys.get(i)), policy, nowMicros, policy.cost());
            steps.add(step);
            allAllowed &= step.decision().allowed();
        }
        List<Decision> decisions = new ArrayList<>(steps.size());
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            if (allAllowed) {
                states.put(keys.get(i), step.next());
                decisions.add(step.decision());
            } else {
                decisions.add(step.unspent());
            }
        }
        return decisions;
    }

    /** {@code state}, or null when absent or past its expiry at {@code nowMicros}, as {@link #forgetExpired} drops. */
    private static BucketState live(BucketState state, long nowMicros) {
        return state != null && nowMicros < state.expiresAtMicros() ? state : null;
    }

    /** The lock of a key's hash tag (the text inside its first braces, as Redis Cluster picks its slot). */
    private Object lockFor(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        String tag = close > open + 1 ? key.substring(open + 1, close) : key;
        return locks[Math.floorMod(tag.hashCode(), STRIPES)];
    }
}
