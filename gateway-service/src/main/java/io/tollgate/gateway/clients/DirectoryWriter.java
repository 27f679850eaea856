package io.tollgate.gateway.clients;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.TenantEntry;

/**
 * Applies pages of directory changes to a copy, one at a time, and keeps the profiles interned: equal profiles
 * are one object, counted by the clients that hold it and dropped when none does. Not thread-safe: one writer.
 */
final class DirectoryWriter {

    /** An interned profile and how many clients of the copy hold it. */
    private static final class Held {

        final Profile profile;
        int clients;

        Held(Profile profile) {
            this.profile = profile;
        }
    }

    private final Map<Profile, Held> interned = new HashMap<>();
    private DirectoryCopy copy;

    DirectoryWriter(DirectoryCopy start) {
        this.copy = start;
        start.clients().forEach((a, b, c, d, profile) -> interned.computeIfAbsent(profile, Held::new).clients++);
    }

    DirectoryCopy copy() {
        return copy;
    }

    /** How many distinct profiles the clients hold. */
    int profiles() {
        return interned.size();
    }

    /** The copy with {@code page} applied: its tenants and clients as they are now, as of its {@code seq}. */
    DirectoryCopy apply(DirectoryChanges page) {
        Map<String, Terms> tenants = copy.tenants();
        if (!page.tenants().isEmpty()) {
            Map<String, Terms> next = new HashMap<>(tenants);
            for (DirectoryChanges.TenantChange change : page.tenants()) {
                TenantEntry entry = change.entry();
                if (entry == null) {
                    next.remove(change.id());
                } else {
                    next.put(change.id(), new Terms(entry.plan(), entry.overrides()));
                }
            }
            tenants = Collections.unmodifiableMap(next);
        }
        ClientTable clients = page.clients().isEmpty() ? copy.clients() : applyClients(page.clients());
        copy = new DirectoryCopy(page.seq(), clients, tenants);
        return copy;
    }

    private ClientTable applyClients(List<DirectoryChanges.ClientChange> changes) {
        int n = changes.size();
        long[] parsed = new long[n * ClientTable.LONGS];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            Digests.parseHex(changes.get(i).digest(), parsed, i * ClientTable.LONGS);
            order[i] = i;
        }
        // by digest, and of one digest's changes the later first, so only the latest is kept
        Arrays.sort(order, (x, y) -> {
            int cmp = ClientTable.compare(parsed, x * ClientTable.LONGS, parsed, y * ClientTable.LONGS);
            return cmp != 0 ? cmp : Integer.compare(y, x);
        });
        long[] digests = new long[n * ClientTable.LONGS];
        Profile[] profiles = new Profile[n];
        int count = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            int at = i * ClientTable.LONGS;
            if (count > 0 && ClientTable.compare(digests, (count - 1) * ClientTable.LONGS, parsed, at) == 0) {
                continue;
            }
            System.arraycopy(parsed, at, digests, count * ClientTable.LONGS, ClientTable.LONGS);
            DirectoryChanges.ClientChange change = changes.get(i);
            Profile now = change.entry() == null ? null : hold(Profile.of(change.entry()));
            release(copy.clients().find(parsed[at], parsed[at + 1], parsed[at + 2], parsed[at + 3]));
            profiles[count++] = now;
        }
        return copy.clients().with(digests, profiles, count);
    }

    /** The interned profile equal to {@code profile}, held by one more client. */
    private Profile hold(Profile profile) {
        Held held = interned.computeIfAbsent(profile, Held::new);
        held.clients++;
        return held.profile;
    }

    /** One client less holds {@code profile} (null: none did). */
    private void release(Profile profile) {
        if (profile == null) {
            return;
        }
        Held held = interned.get(profile);
        if (held != null && --held.clients == 0) {
            interned.remove(profile);
        }
    }
}
