package io.tollgate.counter;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The KEYS and ARGV of one call of the {@code check} script, and the parser of its reply: the one
 * place that owns the argument layout of {@code check.lua}.
 *
 * @param keys
 * the bucket keys, KEYS[1..N]
 * @param args
 * ARGV: now (or empty), then algorithm, limit, period_ms, burst, cost per key (a settled key's cost is
 * {@code s<delta>}, {@link #settle}); for the calls of several clients {@link #together together}, then each one's
 * key count. Two slots carry another field for two algorithms: period_ms a calendar window's end in Unix seconds
 * ({@link Policy#windowEndSecond}), burst a concurrency check's slot id ({@link Policy#slotId})
 */
public record CheckCall(List<String> keys, List<String> args) {

    public CheckCall {
        keys = List.copyOf(keys);
        args = List.copyOf(args);
    }

    /** Per key: algorithm, limit, period_ms, burst, cost. */
    private static final int PER_KEY = 5;

    /**
     * Builds the call for buckets {@code keys[i]} under {@code policies[i]}, each check spending its policy's
     * cost.
     *
     * @param nowMicros
     * explicit Unix time in microseconds (tests); empty lets Redis use its {@code TIME}, as
     * production must. Expiries are absolute ({@code SET ... PXAT}), so an explicit time must be
     * a real moment (e.g. the real clock plus an offset): keys written at a time long past vanish
     * at once
     */
    public static CheckCall of(List<String> keys, List<Policy> policies, OptionalLong nowMicros) {
        return new CheckCall(keys, args(keys, policies, null, nowMicros));
    }

    /**
     * ARGV: now, then per key i its algorithm, limit, period_ms, burst and cost: its policy's, or the settlement
     * {@code s<deltas[i]>} when {@code deltas} is given.
     */
    private static List<String> args(List<String> keys, List<Policy> policies, List<Long> deltas,
            OptionalLong nowMicros) {
        if (keys.isEmpty() || keys.size() != policies.size()) {
            throw new IllegalArgumentException(
                    "need one policy per key and at least one key, got " + keys.size() + " keys, " + policies.size()
                            + " policies");
        }
        // an array made immutable once: the record's copy of it is then the list itself (a call per request)
        String[] args = new String[1 + PER_KEY * policies.size()];
        args[0] = nowMicros.isPresent() ? Long.toString(nowMicros.getAsLong()) : "";
        for (int i = 0, a = 1; i < policies.size(); i++) {
            Policy policy = policies.get(i);
            args[a++] = policy.algorithm().wireName();
            args[a++] = Long.toString(policy.limit());
            args[a++] = Long.toString(periodArg(policy));
            args[a++] = Long.toString(burstArg(policy));
            long cost = policy.cost();
            args[a++] = deltas != null ? "s" + deltas.get(i) : cost == 1 ? "1" : Long.toString(cost);
        }
        return List.of(args);
    }

    /** ARGV's period_ms: a calendar window's end in whole Unix seconds, for the other algorithms the period. */
    private static long periodArg(Policy policy) {
        return policy.algorithm() == Algorithm.CALENDAR_WINDOW ? policy.windowEndSecond() : policy.periodMs();
    }

    /** ARGV's burst: the id of a concurrency check's slot, for the other algorithms the burst. */
    private static long burstArg(Policy policy) {
        if (policy.algorithm() != Algorithm.CONCURRENCY) {
            return policy.burst();
        }
        if (policy.slotId() == 0) {
            throw new IllegalArgumentException("a concurrency check takes a slot: its policy names one (Policy.slot)");
        }
        return policy.slotId();
    }

    /**
     * Builds the call that settles buckets {@code keys[i]} under {@code policies[i]} by {@code deltas[i]}: what a
     * request admitted by a check really used, less the cost that check spent. A positive delta is spent whatever
     * the bucket holds (it may go into debt: its remaining goes below 0 and its checks are rejected until it holds
     * their cost again), a negative one is given back (never above the capacity), 0 changes nothing. Every key
     * answers allowed, remaining after the settlement, retry_after_ms 0 and reset_ms, and is written whatever
     * the checks it is sent {@link #together} with decide. A call like any other: {@link #together},
     * {@link #evalArgs}, {@link #evalArgsOnOneNode} and {@link #parse} work on it.
     *
     * @param deltas
     * per key, a whole number from -{@link Policy#MAX_COST} to {@link Policy#MAX_COST}
     * @param nowMicros
     * as for {@link #of(List, List, OptionalLong)}
     * @throws IllegalArgumentException
     * for a concurrency policy (a slot is released, not settled) or a delta out of range
     */
    public static CheckCall settle(List<String> keys, List<Policy> policies, List<Long> deltas,
            OptionalLong nowMicros) {
        if (deltas.size() != policies.size()) {
            throw new IllegalArgumentException("need one delta per policy, got " + policies.size() + " policies, "
                    + deltas.size() + " deltas");
        }
        checkSettled(policies, deltas);
        return new CheckCall(keys, args(keys, policies, deltas, nowMicros));
    }

    /**
     * Refuses what no settlement takes: a concurrency policy settled by other than -1 (which gives its slot back)
     * or 0 (which renews it),
     * a delta out of range (the script answers both with an error).
     */
    static void checkSettled(List<Policy> policies, List<Long> deltas) {
        for (int i = 0; i < policies.size(); i++) {
            long delta = deltas.get(i);
            if (policies.get(i).algorithm() == Algorithm.CONCURRENCY && delta != -1 && delta != 0) {
                throw new IllegalArgumentException("key " + (i + 1) + " is a concurrency key: only -1 (its slot given"
                        + " back) or 0 (its slot renewed) settles it, was " + delta);
            }
            if (delta < -Policy.MAX_COST || delta > Policy.MAX_COST) {
                throw new IllegalArgumentException("delta of key " + (i + 1) + " must be from -" + Policy.MAX_COST
                        + " to " + Policy.MAX_COST + ", was " + delta);
            }
        }
    }

    /** As {@link #of(List, List, OptionalLong)}, every check spending {@code cost} whatever its policy says. */
    public static CheckCall of(List<String> keys, List<Policy> policies, long cost, OptionalLong nowMicros) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        List<Policy> costed = new ArrayList<>(policies.size());
        for (Policy policy : policies) {
            costed.add(policy.withCost(cost));
        }
        return of(keys, costed, nowMicros);
    }

    /**
     * One call that checks {@code calls} in turn, each all-or-nothing on its own, as if each were sent alone
     * in this order: their keys and policies one after the other, then each one's key count. The reply is
     * theirs in the same order, 4 integers per key: {@code calls.get(i)} parses its own slice. Sent with
     * {@link #evalArgs} on standalone Redis; on a Cluster, where different clients' keys are in different
     * slots, with {@link #evalArgsOnOneNode} when all are on one node. One call is returned as it is.
     *
     * @throws IllegalArgumentException
     * when the calls differ in time, which the script takes once for all of them
     */
    public static CheckCall together(List<CheckCall> calls) {
        if (calls.size() == 1) {
            return calls.get(0);
        }
        CheckCall head = calls.get(0);
        int keyCount = 0;
        for (CheckCall call : calls) {
            if (!call.args.get(0).equals(head.args.get(0))) {
                throw new IllegalArgumentException("calls checked together share now: " + head.args.get(0) + " and "
                        + call.args.get(0));
            }
            if (call.args.size() != 1 + PER_KEY * call.keys.size()) {
                throw new IllegalArgumentException("a call checked together is one client's, not already several");
            }
            keyCount += call.keys.size();
        }
        List<String> keys = new ArrayList<>(keyCount);
        List<String> args = new ArrayList<>(1 + (PER_KEY + 1) * keyCount);
        args.add(head.args.get(0));
        for (CheckCall call : calls) {
            keys.addAll(call.keys);
            args.addAll(call.args.subList(1, call.args.size()));
        }
        for (CheckCall call : calls) {
            args.add(Integer.toString(call.keys.size()));
        }
        return new CheckCall(keys, args);
    }

    /** The arguments of {@code EVALSHA} after the SHA-1: numkeys, the keys, then ARGV. */
    public List<String> evalArgs() {
        List<String> all = new ArrayList<>(1 + keys.size() + args.size());
        all.add(Integer.toString(keys.size()));
        all.addAll(keys);
        all.addAll(args);
        return all;
    }

    /**
     * The arguments of {@code EVALSHA} of {@link CounterScripts#checkOnNode} after the SHA-1, for this call
     * when all its keys live on one Cluster node: numkeys and the keys of the first {@code declaredClients}
     * clients, which must share one slot (they route the call to that node), then ARGV: how many keys follow,
     * the other clients' keys, and this call's ARGV. The reply is this call's, as {@link #parse} reads it.
     * <p>
     * The other clients' keys must not be in the declared keys' slot: a node that is importing that slot
     * runs a call redirected to it ({@code ASK}) for keys of the slot that it does not hold yet, and would
     * read such a key as absent while the node it is moving from still holds it.
     *
     * @throws IllegalArgumentException
     * when {@code declaredClients} is not from 1 to the number of clients
     */
    public List<String> evalArgsOnOneNode(int declaredClients) {
        int n = keys.size();
        int clients = args.size() - (1 + PER_KEY * n);
        if (declaredClients < 1 || declaredClients > Math.max(1, clients)) {
            throw new IllegalArgumentException("declared clients must be from 1 to " + Math.max(1, clients) + ", was "
                    + declaredClients);
        }
        int declared = n;
        if (clients > 0) {
            declared = 0;
            for (int g = 0; g < declaredClients; g++) {
                declared += Integer.parseInt(args.get(1 + PER_KEY * n + g));
            }
        }
        List<String> all = new ArrayList<>(2 + n + args.size());
        all.add(Integer.toString(declared));
        all.addAll(keys.subList(0, declared));
        all.add(Integer.toString(n - declared));
        all.addAll(keys.subList(declared, n));
        all.addAll(args);
        return all;
    }

    /**
     * One decision per key, in key order, from the script's flat reply of 4 x N integers. A remaining below 0 is a
     * bucket in debt.
     */
    public List<Decision> parse(List<Long> reply) {
        if (reply.size() != 4 * keys.size()) {
            throw new IllegalArgumentException(
                    "check replied " + reply.size() + " integers for " + keys.size() + " keys: " + reply);
        }
        List<Decision> decisions = new ArrayList<>(keys.size());
        for (int i = 0; i < reply.size(); i += 4) {
            decisions.add(new Decision(reply.get(i) == 1, reply.get(i + 1), reply.get(i + 2), reply.get(i + 3)));
        }
        return decisions;
    }

    /** As {@link #parse(List)}, for a reply already in an array. */
    public List<Decision> parse(long[] reply) {
        List<Long> boxed = new ArrayList<>(reply.length);
        for (long value : reply) {
            boxed.add(value);
        }
        return parse(boxed);
    }
}
