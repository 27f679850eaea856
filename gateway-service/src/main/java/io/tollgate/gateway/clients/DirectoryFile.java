package io.tollgate.gateway.clients;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
    /** One client: its digest's four longs and its profile's number. */
    private static final int RECORD = ClientTable.LONGS * Long.BYTES + Integer.BYTES;
    private static final int RECORDS_PER_BLOCK = 1820;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

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
        Records records = new Records(out);
        copy.clients().forEach((a, b, c, d, profile) -> records.add(a, b, c, d, numbers.get(profile)));
        records.flush();
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
            byte[] block = new byte[RECORDS_PER_BLOCK * RECORD];
            long[] digest = new long[ClientTable.LONGS];
            for (int read = 0; read < clients; read += RECORDS_PER_BLOCK) {
                int n = Math.min(RECORDS_PER_BLOCK, clients - read);
                in.readFully(block, 0, n * RECORD);
                for (int r = 0; r < n; r++) {
                    for (int k = 0; k < ClientTable.LONGS; k++) {
                        digest[k] = (long) LONG.get(block, r * RECORD + k * Long.BYTES);
                    }
                    int number = (int) INT.get(block, r * RECORD + ClientTable.LONGS * Long.BYTES);
                    if (number < 0 || number >= profiles.size()) {
                        throw new IOException("client " + (read + r) + " names profile " + number + " of "
                                + profiles.size());
                    }
                    table.add(digest, 0, profiles.get(number));
                }
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

    /** Clients written a block at a time: digest (four big-endian longs) and profile number. */
    private static final class Records {

        private final DataOutputStream out;
        private final byte[] block = new byte[RECORDS_PER_BLOCK * RECORD];
        private int n;
        private IOException failed;

        Records(DataOutputStream out) {
            this.out = out;
        }

        void add(long a, long b, long c, long d, int profile) {
            int at = n * RECORD;
            LONG.set(block, at, a);
            LONG.set(block, at + 8, b);
            LONG.set(block, at + 16, c);
            LONG.set(block, at + 24, d);
            INT.set(block, at + 32, profile);
            if (++n == RECORDS_PER_BLOCK) {
                write();
            }
        }

        void flush() throws IOException {
            write();
            if (failed != null) {
                throw failed;
            }
        }

        private void write() {
            try {
                if (failed == null) {
                    out.write(block, 0, n * RECORD);
                }
            } catch (IOException e) {
                failed = e;
            }
            n = 0;
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
