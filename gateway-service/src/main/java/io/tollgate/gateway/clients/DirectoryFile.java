package io.tollgate.gateway.clients;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.TenantEntry;

/**
 * The snapshot form of a directory copy, compact enough for a million clients (36 bytes each): a header (magic,
 * the rules service it came from, the change it is as of), the tenants and the distinct profiles as JSON entries
 * (read back with the rules service's own {@link DirectoryCodec}, as strictly as from the service), then each
 * client as its digest and the number of its profile, in digest order, and a CRC-32 of all of it. A file cut
 * short or altered is refused whole.
 */
final class DirectoryFile {

    private static final int MAGIC = 0x54474431; // "TGD1"
    /** An entry's JSON is small; a length beyond this is a damaged file, not an entry. */
    private static final int MAX_ENTRY_BYTES = 1 << 20;
    private static final DirectoryCodec CODEC = new DirectoryCodec();

    private DirectoryFile() {
    }

    /** What a file holds. */
    record Read(String source, DirectoryCopy copy) {
    }

    static void write(DirectoryCopy copy, String source, OutputStream to) throws IOException {
        CheckedOutputStream checked = new CheckedOutputStream(to, new CRC32());
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(checked, 1 << 16));
        out.writeInt(MAGIC);
        out.writeUTF(source);
        out.writeLong(copy.seq());
        out.writeInt(copy.tenants().size());
        for (Map.Entry<String, Terms> tenant : copy.tenants().entrySet()) {
            out.writeUTF(tenant.getKey());
            entry(out, new TenantEntry(tenant.getValue().plan(), null, tenant.getValue().overrides()));
        }
        Map<Profile, Integer> numbers = new IdentityHashMap<>();
        List<Profile> profiles = new ArrayList<>();
        copy.clients().forEach((a, b, c, d, profile) -> numbers.computeIfAbsent(profile, p -> {
            profiles.add(p);
            return profiles.size() - 1;
        }));
        out.writeInt(profiles.size());
        for (Profile profile : profiles) {
            entry(out, profile.entry());
        }
        out.writeInt(copy.clients().size());
        IOException[] failed = new IOException[1];
        copy.clients().forEach((a, b, c, d, profile) -> {
            try {
                out.writeLong(a);
                out.writeLong(b);
                out.writeLong(c);
                out.writeLong(d);
                out.writeInt(numbers.get(profile));
            } catch (IOException e) {
                failed[0] = e;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        out.flush();
        out.writeLong(checked.getChecksum().getValue());
        out.flush();
    }

    static Read read(InputStream from) throws IOException {
        CheckedInputStream checked = new CheckedInputStream(new BufferedInputStream(from, 1 << 16), new CRC32());
        DataInputStream in = new DataInputStream(checked);
        if (in.readInt() != MAGIC) {
            throw new IOException("not a directory snapshot");
        }
        String source = in.readUTF();
        long seq = in.readLong();
        try {
            Map<String, Terms> tenants = new HashMap<>();
            int tenantCount = count(in);
            for (int i = 0; i < tenantCount; i++) {
                String id = in.readUTF();
                TenantEntry entry = CODEC.parseTenant(entry(in));
                tenants.put(id, new Terms(entry.plan(), entry.overrides()));
            }
            List<Profile> profiles = new ArrayList<>();
            int profileCount = count(in);
            for (int i = 0; i < profileCount; i++) {
                profiles.add(Profile.of(CODEC.parseClient(entry(in))));
            }
            int clients = count(in);
            ClientTable.Builder table = new ClientTable.Builder();
            long[] digest = new long[ClientTable.LONGS];
            for (int i = 0; i < clients; i++) {
                for (int k = 0; k < ClientTable.LONGS; k++) {
                    digest[k] = in.readLong();
                }
                int number = in.readInt();
                if (number < 0 || number >= profiles.size()) {
                    throw new IOException("client " + i + " names profile " + number + " of " + profiles.size());
                }
                table.add(digest, 0, profiles.get(number));
            }
            long computed = checked.getChecksum().getValue();
            if (in.readLong() != computed) {
                throw new IOException("checksum mismatch");
            }
            return new Read(source, new DirectoryCopy(seq, table.build(), Collections.unmodifiableMap(tenants)));
        } catch (RuleValidationException e) {
            throw new IOException("an entry is invalid: " + e.getMessage(), e);
        }
    }

    private static void entry(DataOutputStream out, Object entry) throws IOException {
        byte[] json = CODEC.write(entry).getBytes(StandardCharsets.UTF_8);
        out.writeInt(json.length);
        out.write(json);
    }

    private static byte[] entry(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_ENTRY_BYTES) {
            throw new IOException("an entry of " + length + " bytes");
        }
        return in.readNBytes(length);
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("a count of " + n);
        }
        return n;
    }
}
