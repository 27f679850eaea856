package io.tollgate.gateway.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.DirectoryCopyFormat;
import io.tollgate.rules.domain.TenantEntry;

/**
 * A directory copy in {@link DirectoryCopyFormat}, the form the rules service serves a fresh copy in and the
 * gateway keeps its snapshot in: written from a {@link DirectoryCopy}, read back into one.
 */
final class DirectoryFile {

    private static final DirectoryCodec CODEC = new DirectoryCodec();

    private DirectoryFile() {
    }

    /** What a copy holds. */
    record Read(String source, DirectoryCopy copy) {
    }

    static void write(DirectoryCopy copy, String source, OutputStream to) throws IOException {
        DirectoryCopyFormat.Writer out = new DirectoryCopyFormat.Writer(to, source, copy.seq());
        out.tenants(copy.tenants().size());
        for (Map.Entry<String, PlanAndOverrides> tenant : copy.tenants().entrySet()) {
            PlanAndOverrides terms = tenant.getValue();
            out.tenant(tenant.getKey(), CODEC.write(new TenantEntry(terms.plan(), null, terms.overrides())));
        }
        Map<Profile, Integer> numbers = new IdentityHashMap<>();
        List<Profile> profiles = new ArrayList<>();
        copy.clients().forEach((a, b, c, d, profile) -> numbers.computeIfAbsent(profile, p -> {
            profiles.add(p);
            return profiles.size() - 1;
        }));
        out.profiles(profiles.size());
        for (Profile profile : profiles) {
            out.profile(CODEC.write(profile.entry()));
        }
        out.clients(copy.clients().size());
        IOException[] failed = {null};
        copy.clients().forEach((a, b, c, d, profile) -> {
            try {
                if (failed[0] == null) {
                    out.client(a, b, c, d, numbers.get(profile));
                }
            } catch (IOException e) {
                failed[0] = e;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        out.finish();
    }

    /**
     * The copy {@code from} holds; an {@link IOException} or {@link IllegalArgumentException} (clients out of
     * order) when it is not a whole, valid one.
     */
    static Read read(InputStream from) throws IOException {
        Map<String, PlanAndOverrides> tenants = new HashMap<>();
        List<Profile> profiles = new ArrayList<>();
        ClientTable.Builder table = new ClientTable.Builder();
        long[] digest = new long[ClientTable.LONGS];
        DirectoryCopyFormat.Header header = DirectoryCopyFormat.read(from, new DirectoryCopyFormat.Visitor() {

            @Override
            public void tenant(String id, TenantEntry entry) {
                tenants.put(id, new PlanAndOverrides(entry.plan(), entry.overrides()));
            }

            @Override
            public void profile(ClientEntry entry) {
                profiles.add(Profile.of(entry));
            }

            @Override
            public void client(long a, long b, long c, long d, int profile) {
                digest[0] = a;
                digest[1] = b;
                digest[2] = c;
                digest[3] = d;
                table.add(digest, 0, profiles.get(profile));
            }
        });
        return new Read(header.source(),
                new DirectoryCopy(header.seq(), table.build(), Collections.unmodifiableMap(tenants)));
    }
}
