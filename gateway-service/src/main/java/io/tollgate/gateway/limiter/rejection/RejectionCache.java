package io.tollgate.gateway.limiter.rejection;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;

/**
 * Remembers rejected buckets until their retry time, so a flooding client is answered 429 from memory and
 * costs few store calls per retry period per gateway. Exact for token bucket and GCRA (nothing can free a
 * token earlier); for windows the retry time is the window's end, also exact. Times are counted from when
 * the answer ARRIVED, never earlier than Redis decided, so a probe never comes before its token and meets a
 * rejection: memory may reject past the true retry time by the answer's way back plus Redis's rounding up
 * to whole ms (about 1 ms), never before it: counted from when the check was sent, every retry would come
 * early and meet a rejection in the store.
 * <p>
 * A check that left a bucket less than a request's cost (token bucket, GCRA) is remembered as a rejection until
 * the bucket holds the cost again: reset (the time until full) less (burst - cost) token intervals.
 * <p>
 * Single flight, for token bucket and GCRA: when a remembered rejection runs out, the next request probes
 * the store and the others that arrive while its answer is on
 * the way are answered 429 from memory, until the answer comes, and never past one request's worth of tokens
 * (cost × period ÷ limit) after the bucket could hold its next request: before then the probe takes the only
 * request's worth there can be, so none of them could have passed either. Without it every one of a flood's
 * connections reaches the store each time a token frees. Windows free their whole limit at once: no single
 * flight; nor a bucket idle long enough to hold two requests' worth or more (a burst must not wait behind one
 * probe), except a bucket whose burst holds one request, which never holds more than the one its probe takes.
 */
public final class RejectionCache {

    /** Bounds memory under a flood of distinct keys; past it expired entries go, then all (it is only a cache). */
    private static final int MAX_ENTRIES = 100_000;
    /** How long a probe holds the others back at most, when its answer never comes. */
    private static final long PROBE_NANOS = 1_000_000_000L;

    /**
     * @param untilNanos remembered until then (a probe: while the others wait)
     * @param probing a probe is in flight
     * @param policy the policy the store decided with (its token interval; a rule changed since then forgets
     * the entry)
     */
    private record Entry(long untilNanos, boolean probing, Policy policy) {
    }

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    public RejectionCache(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * For a request about to go to the store with {@code buckets}: null when it may go (it is then the probe of
     * each of them that ran out), else how long each of them keeps it back, in ms, all read at one moment (0
     * for a bucket that does not; at least one is 1 or more): while a rejection is remembered or another
     * request probes.
     */
    public long[] admit(List<Bucket> buckets) {
        if (entries.isEmpty()) {
            return null;
        }
        long now = nanoClock.getAsLong();
        long[] waits = null;
        boolean remembered = false;
        for (int i = 0; i < buckets.size(); i++) {
            Bucket bucket = buckets.get(i);
            Entry e = entries.get(bucket.key());
            if (e == null) {
                continue;
            }
            if (!e.policy().equals(bucket.policy())) {
                entries.remove(bucket.key(), e); // the rule changed: the store decides again
            } else if (e.untilNanos() - now > 0) {
                if (waits == null) {
                    waits = new long[buckets.size()];
                }
                waits[i] = msLeft(e.untilNanos(), now);
            } else {
                remembered = true;
            }
        }
        if (waits != null || !remembered) {
            return waits; // rejected, or nothing of these buckets to probe (most requests): no second look
        }
        Entry[] taken = null; // with several buckets: per bucket this request marked, the entry and its mark
        for (int i = 0; i < buckets.size(); i++) {
            String key = buckets.get(i).key();
            Entry e = entries.get(key);
            if (e == null) {
                continue;
            }
            if (e.untilNanos() - now > 0) {
                // since the look above, another request became this bucket's probe (or its answer came): this
                // one waits, giving back the buckets it marked. (Taking that fresh mark for a lost probe let a
                // flood through.)
                unmark(buckets, taken);
                waits = new long[buckets.size()];
                waits[i] = msLeft(e.untilNanos(), now);
                return waits;
            }
            // the others wait for this probe until the bucket could hold a second request's cost (never, when
            // the burst holds only one), and no longer than one request's worth of refill from now, in case its
            // answer never comes
            long step = interval(e.policy()) * e.policy().cost();
            long secondRequest = e.policy().burst() >= 2 * e.policy().cost() ? e.untilNanos() + step : Long.MAX_VALUE;
            long holdUntil = e.probing() ? now : Math.min(secondRequest, now + Math.min(step, PROBE_NANOS));
            if (holdUntil <= now) {
                entries.remove(key, e); // a window, an old entry or a lost probe: everyone may go
                continue;
            }
            Entry mark = new Entry(holdUntil, true, e.policy());
            if (!entries.replace(key, e, mark)) {
                i--; // it changed since this look (another request's mark, an answer): look again
            } else if (buckets.size() > 1) {
                if (taken == null) {
                    taken = new Entry[2 * buckets.size()];
                }
                taken[2 * i] = e;
                taken[2 * i + 1] = mark;
            }
        }
        return null;
    }

    /**
     * How long a remembered rejection (or another request's probe) keeps back each of {@code buckets}, in ms, as
     * {@link #admit} would answer a request it keeps back; null when none does. Only looks: marks no probe.
     */
    public long[] remembered(List<Bucket> buckets) {
        if (entries.isEmpty()) {
            return null;
        }
        long now = nanoClock.getAsLong();
        long[] waits = null;
        for (int i = 0; i < buckets.size(); i++) {
            Entry e = entries.get(buckets.get(i).key());
            if (e != null && e.policy().equals(buckets.get(i).policy()) && e.untilNanos() - now > 0) {
                if (waits == null) {
                    waits = new long[buckets.size()];
                }
                waits[i] = msLeft(e.untilNanos(), now);
            }
        }
        return waits;
    }

    /** The store rejected {@code bucket}, in an answer that arrived just now. */
    public void rejected(Bucket bucket, long retryAfterMs) {
        if (retryAfterMs <= 0) {
            forget(bucket.key());
            return;
        }
        remember(bucket, retryAfterMs * 1_000_000);
    }

    /**
     * The store allowed {@code bucket}, in an answer that arrived just now, leaving {@code remaining} whole
     * tokens, full again in {@code resetMs}.
     */
    public void allowed(Bucket bucket, long remaining, long resetMs) {
        long cost = bucket.policy().cost();
        // enough left for another request, the common case: no division
        long interval = remaining >= cost ? 0 : interval(bucket.policy());
        if (interval == 0) {
            forget(bucket.key());
            return;
        }
        // less than a request's cost is left: nobody passes before the bucket holds it again (its fill falls
        // (burst - cost) intervals short of full then), then one request probes (single flight)
        remember(bucket, Math.max(0, resetMs * 1_000_000 - (bucket.policy().burst() - cost) * interval));
    }

    /** {@code bucket} is rejected for {@code forNanos} from now, the moment its answer arrived. */
    private void remember(Bucket bucket, long forNanos) {
        long now = nanoClock.getAsLong();
        bound(now);
        entries.put(bucket.key(), new Entry(now + forNanos, false, bucket.policy()));
    }

    /** Nothing is remembered of {@code bucketKey} any more (the store could not answer for it). */
    public void forget(String bucketKey) {
        if (!entries.isEmpty()) {
            entries.remove(bucketKey);
        }
    }

    /**
     * Puts back what this request's marks replaced, so each of those buckets still has ONE probe to come
     * (removing them would let every request through at once); a mark already replaced by an answer stays.
     */
    private void unmark(List<Bucket> buckets, Entry[] taken) {
        if (taken == null) {
            return;
        }
        for (int j = 0; j < buckets.size(); j++) {
            if (taken[2 * j + 1] != null) {
                entries.replace(buckets.get(j).key(), taken[2 * j + 1], taken[2 * j]);
            }
        }
    }

    private void bound(long now) {
        if (entries.size() >= MAX_ENTRIES) {
            entries.values().removeIf(e -> e.untilNanos() + interval(e.policy()) - now <= 0);
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
        }
    }

    private static long interval(Policy policy) {
        boolean bucket = policy.algorithm() == Algorithm.TOKEN_BUCKET || policy.algorithm() == Algorithm.GCRA;
        return bucket ? policy.periodMs() * 1_000_000 / policy.limit() : 0;
    }

    private static long msLeft(long until, long now) {
        long left = until - now;
        return left <= 0 ? 0 : Math.max(1, left / 1_000_000);
    }
}
