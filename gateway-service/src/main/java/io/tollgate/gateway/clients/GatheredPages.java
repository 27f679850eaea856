package io.tollgate.gateway.clients;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.TenantEntry;

/**
 * Pages of directory changes gathered apart from the copy in force, which nobody reads until the last page is
 * in; then put in force whole: built into a copy from nothing ({@link #build}), or merged into the copy in force
 * in one pass ({@link DirectoryWriter#merge}). Pages are not merged one by one: each would copy the whole table,
 * which for a million clients in pages of 10,000 is a hundred copies. They are gathered in compact form (digest
 * and interned profile, 36 bytes a change) and sorted by segment and digest once, a segment at a time, the latest
 * change of each client kept. Not thread-safe: one writer.
 */
final class GatheredPages {

    /** Each tenant's latest change: its terms now, or null when it was deleted. */
    private final Map<String, PlanAndOverrides> tenants = new HashMap<>();
    private final Map<Profile, Profile> interned = new HashMap<>();
    private long[] digests = new long[1024 * ClientTable.LONGS];
    private Profile[] profiles = new Profile[1024];
    private int count;
    private long seq;
    /** Where each segment's changes start in {@link #order}; made once the last page is in. */
    private int[] starts;
    private int[] order;

    GatheredPages(long seq) {
        this.seq = seq;
    }

    /** The last change gathered; the seq gathering started after before any. */
    long seq() {
        return seq;
    }

    /** How many client changes were gathered. */
    int changes() {
        return count;
    }

    void apply(DirectoryChanges page) {
        for (DirectoryChanges.TenantChange change : page.tenants()) {
            TenantEntry entry = change.entry();
            tenants.put(change.id(), entry == null ? null : new PlanAndOverrides(entry.plan(), entry.overrides()));
        }
        for (DirectoryChanges.ClientChange change : page.clients()) {
            if (count == profiles.length) {
                profiles = Arrays.copyOf(profiles, count * 2);
                digests = Arrays.copyOf(digests, count * 2 * ClientTable.LONGS);
            }
            Digests.parseHex(change.digest(), digests, count * ClientTable.LONGS);
            profiles[count++] = change.entry() == null
                    ? null
                    : interned.computeIfAbsent(Profile.of(change.entry()), p -> p);
        }
        seq = page.seq();
    }

    /** The copy of everything gathered, from nothing: per client its latest change, deleted ones left out. */
    DirectoryCopy build() {
        return new DirectoryCopy(seq, ClientTable.EMPTY.with(this::segment), tenantsOnto(Map.of()));
    }

    /** {@code before}'s tenants with the gathered tenant changes applied (unmodifiable). */
    Map<String, PlanAndOverrides> tenantsOnto(Map<String, PlanAndOverrides> before) {
        if (tenants.isEmpty()) {
            return before;
        }
        Map<String, PlanAndOverrides> after = new HashMap<>(before);
        tenants.forEach((id, terms) -> {
            if (terms == null) {
                after.remove(id);
            } else {
                after.put(id, terms);
            }
        });
        return Collections.unmodifiableMap(after);
    }

    /**
     * The changes of segment {@code seg}, sorted by digest, each client's latest only (its profile null when it is
     * gone), or null when none; ask for the segments in ascending order.
     */
    ClientTable.Run segment(int seg) {
        if (order == null) {
            bySegment();
        }
        int from = starts[seg];
        int to = starts[seg + 1];
        if (from == to) {
            return null;
        }
        Integer[] changes = new Integer[to - from];
        for (int k = from; k < to; k++) {
            changes[k - from] = order[k];
        }
        // stable: of one client's changes, the later stays later
        Arrays.sort(changes, (x, y) -> ClientTable.compare(digests, x * ClientTable.LONGS, digests,
                y * ClientTable.LONGS));
        long[] runDigests = new long[changes.length * ClientTable.LONGS];
        Profile[] runProfiles = new Profile[changes.length];
        int n = 0;
        for (int k = 0; k < changes.length; k++) {
            int i = changes[k];
            boolean last = k + 1 == changes.length || ClientTable.compare(digests, i * ClientTable.LONGS, digests,
                    changes[k + 1] * ClientTable.LONGS) != 0;
            if (last) {
                System.arraycopy(digests, i * ClientTable.LONGS, runDigests, n * ClientTable.LONGS, ClientTable.LONGS);
                runProfiles[n++] = profiles[i];
            }
        }
        return new ClientTable.Run(runDigests, runProfiles, 0, n);
    }

    /** The changes' numbers, grouped by segment, each segment's in the order they came (a counting sort). */
    private void bySegment() {
        starts = new int[ClientTable.SEGMENTS + 1];
        for (int i = 0; i < count; i++) {
            starts[ClientTable.segmentOf(digests[i * ClientTable.LONGS]) + 1]++;
        }
        for (int s = 0; s < ClientTable.SEGMENTS; s++) {
            starts[s + 1] += starts[s];
        }
        order = new int[count];
        int[] next = Arrays.copyOf(starts, ClientTable.SEGMENTS);
        for (int i = 0; i < count; i++) {
            order[next[ClientTable.segmentOf(digests[i * ClientTable.LONGS])]++] = i;
        }
    }
}
