package io.tollgate.gateway.clients;

import java.util.HashMap;
import java.util.Map;

import io.tollgate.rules.domain.DirectoryChanges;

/**
 * Applies pages of directory changes to a copy, one at a time or gathered ({@link GatheredPages}), and keeps the
 * profiles interned: equal profiles are one object, counted by the clients that hold it and dropped when none
 * does. Not thread-safe: one writer.
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
        GatheredPages one = new GatheredPages(copy.seq());
        one.apply(page);
        return merge(one);
    }

    /** The copy with every page of {@code pages} applied at once, as of the last one's {@code seq}. */
    DirectoryCopy merge(GatheredPages pages) {
        ClientTable before = copy.clients();
        ClientTable clients = pages.changes() == 0 ? before : before.with(seg -> hold(before, pages.segment(seg)));
        copy = new DirectoryCopy(pages.seq(), clients, pages.tenantsOnto(copy.tenants()));
        return copy;
    }

    /** {@code run} with its profiles interned and held, the profiles of the clients it replaces released. */
    private ClientTable.Run hold(ClientTable before, ClientTable.Run run) {
        if (run == null) {
            return null;
        }
        long[] d = run.digests();
        Profile[] profiles = run.profiles();
        for (int i = run.from(); i < run.to(); i++) {
            int at = i * ClientTable.LONGS;
            release(before.find(d[at], d[at + 1], d[at + 2], d[at + 3]));
            profiles[i] = profiles[i] == null ? null : hold(profiles[i]);
        }
        return run;
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
