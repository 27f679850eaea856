package io.tollgate.gateway.clients;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * The clients of the directory by digest, immutable: 4,096 segments by the digest's first 12 bits, each two
 * parallel arrays sorted by digest (four longs per client, then its interned {@link Profile}). A million clients
 * cost 36 bytes each (the 32 bytes of the digest and one reference) and no object of their own; a lookup is one
 * segment read and a short walk from where the digest should lie among its segment's 250 or so, with no lock. A change builds
 * the segments it touches
 * anew and shares the others, so one client's change copies about 250 entries, and a page of 10,000 about all.
 */
final class ClientTable {

    static final int SEGMENT_BITS = 12;
    static final int SEGMENTS = 1 << SEGMENT_BITS;
    static final int LONGS = 4;
    /** How far a lookup walks from where the digest should be before it searches by halves. */
    private static final int WALK = 8;

    private static final Segment NONE = new Segment(new long[0], new Profile[0]);

    static final ClientTable EMPTY = new Builder().build();

    /** One segment: {@code digests} holds {@link #LONGS} longs per client, in the order of {@code profiles}. */
    private record Segment(long[] digests, Profile[] profiles) {
    }

    private final Segment[] segments;
    private final int size;

    private ClientTable(Segment[] segments, int size) {
        this.segments = segments;
        this.size = size;
    }

    /** How many clients it holds. */
    int size() {
        return size;
    }

    /** The profile of the client whose digest is {@code a b c d} (big-endian), or null when unknown. */
    Profile find(long a, long b, long c, long d) {
        Segment s = segments[segmentOf(a)];
        int i = search(s, a, b, c, d);
        return i >= 0 ? s.profiles[i] : null;
    }

    /**
     * Changes to one segment: entries {@code from..to} of {@code digests} ({@link #LONGS} longs each) and
     * {@code profiles}, sorted ascending without repeats, each with its profile now or null when the client is gone.
     */
    record Run(long[] digests, Profile[] profiles, int from, int to) {
    }

    /**
     * This table with {@code changes} applied: {@code digests} ({@link #LONGS} longs each) sorted ascending without
     * repeats, each with its profile now or null when the client is gone. Untouched segments are shared.
     */
    ClientTable with(long[] digests, Profile[] profiles, int count) {
        int[] next = {0};
        return with(seg -> {
            int from = next[0];
            if (from >= count || segmentOf(digests[from * LONGS]) != seg) {
                return null;
            }
            int end = from;
            while (end < count && segmentOf(digests[end * LONGS]) == seg) {
                end++;
            }
            next[0] = end;
            return new Run(digests, profiles, from, end);
        });
    }

    /**
     * This table with the changes {@code changes} gives for each segment in turn (null: none) applied; untouched
     * segments are shared. Asked segment by segment, so changes gathered in any order need sorting only one
     * segment at a time.
     */
    ClientTable with(IntFunction<Run> changes) {
        Builder out = new Builder();
        for (int seg = 0; seg < SEGMENTS; seg++) {
            Run run = changes.apply(seg);
            if (run == null || run.from() == run.to()) {
                out.keep(seg, segments[seg]);
            } else {
                merge(segments[seg], run.digests(), run.profiles(), run.from(), run.to(), out);
            }
        }
        return out.build();
    }

    /** Every client in ascending digest order, as the snapshot writes them. */
    void forEach(Visitor visitor) {
        for (Segment s : segments) {
            for (int i = 0; i < s.profiles.length; i++) {
                int at = i * LONGS;
                visitor.client(s.digests[at], s.digests[at + 1], s.digests[at + 2], s.digests[at + 3], s.profiles[i]);
            }
        }
    }

    /** Receives each client of {@link #forEach}. */
    interface Visitor {

        void client(long a, long b, long c, long d, Profile profile);
    }

    /** Old entries of {@code old} and changes {@code from..to} of one segment, in order, into {@code out}. */
    private static void merge(Segment old, long[] digests, Profile[] profiles, int from, int to, Builder out) {
        int i = 0;
        int j = from;
        int oldCount = old.profiles.length;
        while (i < oldCount || j < to) {
            int cmp = i >= oldCount ? 1 : j >= to ? -1 : compare(old.digests, i * LONGS, digests, j * LONGS);
            if (cmp < 0) {
                out.add(old.digests, i * LONGS, old.profiles[i]);
                i++;
            } else {
                if (profiles[j] != null) {
                    out.add(digests, j * LONGS, profiles[j]);
                }
                i += cmp == 0 ? 1 : 0;
                j++;
            }
        }
    }

    /**
     * The position of a digest in its segment, or -1. Digests are uniform, so the bits of {@code a} below the
     * segment's say about where it lies: the search starts there and walks a few entries (one or two cache lines,
     * where a binary search of 250 entries touches eight), and falls back to a binary search if it walks far.
     */
    private static int search(Segment s, long a, long b, long c, long d) {
        int n = s.profiles.length;
        if (n == 0) {
            return -1;
        }
        long[] ds = s.digests;
        int i = (int) ((((a << SEGMENT_BITS) >>> 33) * n) >>> 31);
        int cmp = compare(ds, i, a, b, c, d);
        int step = cmp < 0 ? 1 : -1;
        for (int walked = 0; cmp != 0 && walked < WALK; walked++) {
            int next = i + step;
            if (next < 0 || next >= n) {
                return -1;
            }
            int nextCmp = compare(ds, next, a, b, c, d);
            if (nextCmp != 0 && Integer.signum(nextCmp) != Integer.signum(cmp)) {
                return -1; // passed where it would be
            }
            i = next;
            cmp = nextCmp;
        }
        if (cmp == 0) {
            return i;
        }
        return cmp < 0 ? binary(ds, i + 1, n - 1, a, b, c, d) : binary(ds, 0, i - 1, a, b, c, d);
    }

    private static int binary(long[] ds, int lo, int hi, long a, long b, long c, long d) {
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = compare(ds, mid, a, b, c, d);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /** The order of entry {@code i} of {@code ds} and the digest {@code a b c d}. */
    private static int compare(long[] ds, int i, long a, long b, long c, long d) {
        int at = i * LONGS;
        int cmp = Long.compareUnsigned(ds[at], a);
        if (cmp == 0) {
            cmp = Long.compareUnsigned(ds[at + 1], b);
            if (cmp == 0) {
                cmp = Long.compareUnsigned(ds[at + 2], c);
                if (cmp == 0) {
                    cmp = Long.compareUnsigned(ds[at + 3], d);
                }
            }
        }
        return cmp;
    }

    /** The order of two digests of {@link #LONGS} longs each: unsigned, most significant long first. */
    static int compare(long[] x, int xAt, long[] y, int yAt) {
        for (int k = 0; k < LONGS; k++) {
            int cmp = Long.compareUnsigned(x[xAt + k], y[yAt + k]);
            if (cmp != 0) {
                return cmp;
            }
        }
        return 0;
    }

    static int segmentOf(long first) {
        return (int) (first >>> (Long.SIZE - SEGMENT_BITS));
    }

    /**
     * Builds a table from clients added in ascending digest order (a snapshot's, or a merge's), segment by
     * segment: each segment's arrays are cut to size once it is complete.
     */
    static final class Builder {

        private final Segment[] segments = new Segment[SEGMENTS];
        private int size;
        private int current = -1;
        private long[] digests = new long[64 * LONGS];
        private Profile[] profiles = new Profile[64];
        private int count;

        Builder() {
            Arrays.fill(segments, NONE);
        }

        /** Adds one client, whose digest must follow the last one added. */
        void add(long[] digest, int at, Profile profile) {
            int seg = segmentOf(digest[at]);
            if (seg != current) {
                if (seg < current) {
                    throw new IllegalArgumentException("clients out of order");
                }
                flush();
                current = seg;
            } else if (count == 0 || compare(digests, (count - 1) * LONGS, digest, at) >= 0) {
                throw new IllegalArgumentException("clients out of order or repeated");
            }
            if (count == profiles.length) {
                profiles = Arrays.copyOf(profiles, count * 2);
                digests = Arrays.copyOf(digests, count * 2 * LONGS);
            }
            System.arraycopy(digest, at, digests, count * LONGS, LONGS);
            profiles[count++] = profile;
        }

        /** Takes {@code segment} whole as segment {@code index}, which must come after those added. */
        void keep(int index, Segment segment) {
            if (index <= current) {
                throw new IllegalArgumentException("segments out of order");
            }
            flush();
            current = index;
            segments[index] = segment;
            size += segment.profiles.length;
        }

        ClientTable build() {
            flush();
            current = SEGMENTS;
            return new ClientTable(segments, size);
        }

        private void flush() {
            if (count > 0) {
                segments[current] = new Segment(Arrays.copyOf(digests, count * LONGS), Arrays.copyOf(profiles, count));
                size += count;
                count = 0;
            }
        }
    }
}
