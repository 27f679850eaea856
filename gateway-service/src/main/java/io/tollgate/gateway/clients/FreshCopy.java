package io.tollgate.gateway.clients;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.TenantEntry;

/**
 * A copy built from nothing, page by page, that nobody reads until it is complete: pages are not merged one by
 * one (each would copy the whole table, which for a million clients in pages of 10,000 is a hundred copies) but
 * gathered in compact form (digest and interned profile, 36 bytes a change), then sorted by segment and digest
 * once, the latest change of each client kept. Not thread-safe: one writer.
 */
final class FreshCopy {

    private final Map<String, Terms> tenants = new HashMap<>();
    private final Map<Profile, Profile> interned = new HashMap<>();
    private long[] digests = new long[1024 * ClientTable.LONGS];
    private Profile[] profiles = new Profile[1024];
    private int count;
    private long seq;

    /** The last change gathered; 0 before any. */
    long seq() {
        return seq;
    }

    void apply(DirectoryChanges page) {
        for (DirectoryChanges.TenantChange change : page.tenants()) {
            TenantEntry entry = change.entry();
            if (entry == null) {
                tenants.remove(change.id());
            } else {
                tenants.put(change.id(), new Terms(entry.plan(), entry.overrides()));
            }
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

    /** The copy of everything gathered: per client its latest change, deleted clients left out. */
    DirectoryCopy build() {
        int[] order = bySegment();
        ClientTable.Builder table = new ClientTable.Builder();
        int from = 0;
        while (from < count) {
            int segment = ClientTable.segmentOf(digests[order[from] * ClientTable.LONGS]);
            int to = from;
            while (to < count && ClientTable.segmentOf(digests[order[to] * ClientTable.LONGS]) == segment) {
                to++;
            }
            addSegment(order, from, to, table);
            from = to;
        }
        return new DirectoryCopy(seq, table.build(), Collections.unmodifiableMap(new HashMap<>(tenants)));
    }

    /** The changes' numbers, grouped by segment, each segment's in the order they came (a counting sort). */
    private int[] bySegment() {
        int[] starts = new int[ClientTable.SEGMENTS + 1];
        for (int i = 0; i < count; i++) {
            starts[ClientTable.segmentOf(digests[i * ClientTable.LONGS]) + 1]++;
        }
        for (int s = 0; s < ClientTable.SEGMENTS; s++) {
            starts[s + 1] += starts[s];
        }
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[starts[ClientTable.segmentOf(digests[i * ClientTable.LONGS])]++] = i;
        }
        return order;
    }

    /** One segment's changes, sorted by digest (stable: a client's changes stay in order), each client's last kept. */
    private void addSegment(int[] order, int from, int to, ClientTable.Builder table) {
        Integer[] changes = new Integer[to - from];
        for (int k = from; k < to; k++) {
            changes[k - from] = order[k];
        }
        Arrays.sort(changes, (x, y) -> ClientTable.compare(digests, x * ClientTable.LONGS, digests, y * ClientTable.LONGS));
        for (int k = 0; k < changes.length; k++) {
            int i = changes[k];
            boolean last = k + 1 == changes.length || ClientTable.compare(digests, i * ClientTable.LONGS, digests,
                    changes[k + 1] * ClientTable.LONGS) != 0;
            if (last && profiles[i] != null) {
                table.add(digests, i * ClientTable.LONGS, profiles[i]);
            }
        }
    }
}
