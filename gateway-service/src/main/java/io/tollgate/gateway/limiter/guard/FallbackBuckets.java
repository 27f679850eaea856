package io.tollgate.gateway.limiter.guard;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.store.Bucket;

/**
 * The {@code local} failure mode's buckets, held to what the shared store last said.
 * <p>
 * Every answer of the store (in time or late) is remembered per bucket as its <em>word</em>: the whole units
 * it left, when the answer arrived. When the store cannot answer, a bucket here admits at this gateway's
 * share of the rule (limit and burst ÷ live gateways, at least 1, as a token bucket) and never more than
 * the word allows: the word's remaining ÷ live gateways, refilled at the share's rate since it arrived. So
 * a client the store just rejected or nearly emptied stays rejected, and the whole fleet admits at most
 * what the store last allowed plus what refills meanwhile, since each gateway's cap is its share of the
 * remaining its own latest word reported. A client with no word gets the full share. Every word caps the
 * local bucket again (never raises it): the store's remaining already counts the requests this gateway
 * admitted locally whose checks reached the store late.
 * <p>
 * The buckets are not {@code InMemoryCounters} (the memory store's, which decides as the scripts do): every
 * algorithm's rule is held here as a token bucket at the share, on this process's nanosecond clock, and capped by
 * the store's word, which no script state holds.
 * <p>
 * Words expire once the bucket they describe would be full again; both maps are bounded like
 * {@code RejectionCache}: past {@link #MAX_ENTRIES} the stale entries go, then all (it is only a cap:
 * forgetting it means the share decides).
 */
final class FallbackBuckets {

    static final int MAX_ENTRIES = 100_000;
    /** Tokens this close to whole count as whole, as in the token-bucket script. */
    private static final double EPSILON = 1e-9;
    private static final int STRIPES = 64;

    /** What the store said of one bucket: {@code remaining} whole units when its answer arrived. */
    private record Word(long remaining, long atNanos, long fullAtNanos) {
    }

    /** A local bucket: {@code tokens} at {@code atNanos}. Guarded by its key's stripe lock. */
    private static final class Local {

        double tokens;
        long atNanos;

        Local(double tokens, long atNanos) {
            this.tokens = tokens;
            this.atNanos = atNanos;
        }
    }

    private final ConcurrentHashMap<String, Word> words = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Local> locals = new ConcurrentHashMap<>();
    private final Object[] locks = new Object[STRIPES];
    private final LongSupplier nanoClock;

    FallbackBuckets(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    /** The store's answer for {@code bucket} arrived just now: {@code remaining} left, full in {@code resetMs}. */
    void heard(Bucket bucket, long remaining, long resetMs) {
        long now = nanoClock.getAsLong();
        if (words.size() >= MAX_ENTRIES) {
            words.values().removeIf(w -> w.fullAtNanos() - now <= 0);
            if (words.size() >= MAX_ENTRIES) {
                words.clear();
            }
        }
        words.put(bucket.key(), new Word(Math.max(0, remaining), now, now + Math.max(0, resetMs) * 1_000_000));
    }

    /**
     * One request against {@code buckets} (one client's), all-or-nothing: each needs its policy's cost in
     * whole units, and either every one is spent or none. As from the store, each decision says whether ITS bucket allows.
     *
     * @param gateways the live gateways sharing the rule
     */
    List<Decision> decide(List<Bucket> buckets, int gateways) {
        int n = Math.max(1, gateways);
        Decision[] out = new Decision[buckets.size()];
        Policy[] shares = new Policy[buckets.size()];
        double[] held = new double[buckets.size()];
        Local[] local = new Local[buckets.size()];
        synchronized (lockOf(buckets.get(0).key())) {
            long now = nanoClock.getAsLong();
            boolean all = true;
            for (int i = 0; i < buckets.size(); i++) {
                Bucket bucket = buckets.get(i);
                Policy share = FailurePolicy.share(bucket.policy(), n);
                shares[i] = share;
                local[i] = locals.computeIfAbsent(bucket.key(), k -> new Local(share.burst(), now));
                held[i] = held(local[i], words.get(bucket.key()), share, n, now);
                all &= held[i] >= share.cost() - EPSILON;
            }
            for (int i = 0; i < buckets.size(); i++) {
                long cost = shares[i].cost();
                double left = all ? Math.max(0, held[i] - cost) : held[i];
                local[i].tokens = left;
                local[i].atNanos = now;
                out[i] = decision(held[i] >= cost - EPSILON, left, shares[i]);
            }
            if (locals.size() >= MAX_ENTRIES) {
                locals.clear(); // only a cap: the share decides for whoever was forgotten
            }
        }
        return List.of(out);
    }

    /** The local bucket's tokens at {@code now}: refilled at the share's rate, capped by the word and the burst. */
    private static double held(Local local, Word word, Policy share, int n, long now) {
        double rate = ratePerNano(share);
        double tokens = Math.min(share.burst(), local.tokens + rate * Math.max(0, now - local.atNanos));
        if (word != null) {
            double said = (double) word.remaining() / n + rate * Math.max(0, now - word.atNanos());
            tokens = Math.min(tokens, said);
        }
        return tokens;
    }

    private static Decision decision(boolean allowed, double left, Policy share) {
        long cost = share.cost();
        double rate = ratePerNano(share);
        long remaining = (long) Math.floor(left + EPSILON);
        long resetMs = ceilMs((share.burst() - left) / rate);
        long retryMs = allowed ? 0 : cost > share.burst() ? Decision.RETRY_NEVER : Math.max(1, ceilMs((cost - left) / rate));
        return new Decision(allowed, remaining, retryMs, resetMs);
    }

    private static double ratePerNano(Policy share) {
        return share.limit() / (share.periodMs() * 1e6);
    }

    private static long ceilMs(double nanos) {
        return nanos <= 0 ? 0 : (long) Math.ceil(nanos / 1e6);
    }

    /** The stripe of a key's hash tag: one client's buckets share it, as they share a shard. */
    private Object lockOf(String key) {
        int open = key.indexOf('{');
        return locks[Math.floorMod((open < 0 ? key : key.substring(open)).hashCode(), STRIPES)];
    }
}
