package io.tollgate.rules.domain;

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
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * THE form of a whole copy of the client directory, compact enough for a million clients (36 bytes each): what the
 * rules service serves a gateway far behind ({@code GET /api/v1/directory/copy}) and what a gateway keeps as its
 * snapshot. A header (magic, the source it came from, the change it is as of), the tenants and the distinct
 * client profiles (an entry without its label) as JSON entries, read back with {@link DirectoryCodec} as strictly
 * as one sent alone, then each client as its digest and the number of its profile, in ascending digest order, and
 * a CRC-32 of all of it. A copy cut short or altered is refused whole.
 */
public final class DirectoryCopyFormat {

    /** The media type of a copy over HTTP. */
    public static final String MEDIA_TYPE = "application/vnd.tollgate.directory-copy";
    private static final int MAGIC = 0x54474431; // "TGD1"
    /** An entry's JSON is small; a length beyond this is a damaged copy, not an entry. */
    private static final int MAX_ENTRY_BYTES = 1 << 20;
    /** Digest longs per client. */
    public static final int LONGS = 4;
    /** One client: its digest's four longs and its profile's number. */
    private static final int RECORD = LONGS * Long.BYTES + Integer.BYTES;
    private static final int RECORDS_PER_BLOCK = 1820;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final DirectoryCodec CODEC = new DirectoryCodec();

    private DirectoryCopyFormat() {
    }

    /** What the header of a copy says. */
    public record Header(String source, long seq) {
    }

    /** Receives what a copy holds, in its order: tenants, profiles (numbered from 0 as they come), clients. */
    public interface Visitor {

        void tenant(String id, TenantEntry entry);

        void profile(ClientEntry entry);

        /** One client, digest {@code a b c d} (big-endian), holding the profile numbered {@code profile}. */
        void client(long a, long b, long c, long d, int profile);
    }

    /**
     * Writes one copy, in order: {@link #tenants} and each {@link #tenant}, {@link #profiles} and each
     * {@link #profile}, {@link #clients} and each {@link #client} in ascending digest order, then {@link #finish}.
     * The counts said first must be the counts written. Not thread-safe.
     */
    public static final class Writer {

        private final CheckedOutputStream checked;
        private final DataOutputStream out;
        private final byte[] block = new byte[RECORDS_PER_BLOCK * RECORD];
        private int inBlock;
        private long expected;
        private long written;

        public Writer(OutputStream to, String source, long seq) throws IOException {
            this.checked = new CheckedOutputStream(to, new CRC32());
            this.out = new DataOutputStream(new BufferedOutputStream(checked, 1 << 16));
            out.writeInt(MAGIC);
            out.writeUTF(source);
            out.writeLong(seq);
        }

        public void tenants(int count) throws IOException {
            section(count);
        }

        /** One tenant: its id and its entry's JSON. */
        public void tenant(String id, String entryJson) throws IOException {
            out.writeUTF(id);
            entry(entryJson);
        }

        public void profiles(int count) throws IOException {
            section(count);
        }

        /** One profile: a client entry's JSON (its label left out). */
        public void profile(String entryJson) throws IOException {
            entry(entryJson);
        }

        public void clients(int count) throws IOException {
            section(count);
        }

        public void client(long a, long b, long c, long d, int profile) throws IOException {
            int at = inBlock * RECORD;
            LONG.set(block, at, a);
            LONG.set(block, at + 8, b);
            LONG.set(block, at + 16, c);
            LONG.set(block, at + 24, d);
            INT.set(block, at + 32, profile);
            written++;
            if (++inBlock == RECORDS_PER_BLOCK) {
                flushBlock();
            }
        }

        /** Ends the copy with its checksum, and flushes it (the stream stays open). */
        public void finish() throws IOException {
            complete();
            flushBlock();
            out.flush();
            out.writeLong(checked.getChecksum().getValue());
            out.flush();
        }

        private void entry(String json) throws IOException {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
            written++;
        }

        /** Starts a section of {@code count} items, the one before it complete. */
        private void section(int count) throws IOException {
            complete();
            flushBlock();
            out.writeInt(count);
            expected = count;
            written = 0;
        }

        private void complete() {
            if (written != expected) {
                throw new IllegalStateException(written + " written where " + expected + " were said");
            }
        }

        private void flushBlock() throws IOException {
            out.write(block, 0, inBlock * RECORD);
            inBlock = 0;
        }
    }

    /**
     * Reads one copy into {@code visitor}, every entry checked as strictly as one sent to the rules service, every
     * profile number in range, the checksum matched; an {@link IOException} (naming what is wrong) when it is not a
     * whole, valid copy. The visitor may already have been given part of it then.
     */
    public static Header read(InputStream from, Visitor visitor) throws IOException {
        CheckedInputStream checked = new CheckedInputStream(new BufferedInputStream(from, 1 << 16), new CRC32());
        DataInputStream in = new DataInputStream(checked);
        if (in.readInt() != MAGIC) {
            throw new IOException("not a directory copy");
        }
        Header header = new Header(in.readUTF(), in.readLong());
        try {
            int tenants = count(in);
            for (int i = 0; i < tenants; i++) {
                String id = in.readUTF();
                visitor.tenant(id, CODEC.parseTenant(entry(in)));
            }
            int profiles = count(in);
            for (int i = 0; i < profiles; i++) {
                visitor.profile(CODEC.parseClient(entry(in)));
            }
            int clients = count(in);
            byte[] block = new byte[RECORDS_PER_BLOCK * RECORD];
            for (int read = 0; read < clients; read += RECORDS_PER_BLOCK) {
                int n = Math.min(RECORDS_PER_BLOCK, clients - read);
                in.readFully(block, 0, n * RECORD);
                for (int r = 0; r < n; r++) {
                    int at = r * RECORD;
                    int number = (int) INT.get(block, at + LONGS * Long.BYTES);
                    if (number < 0 || number >= profiles) {
                        throw new IOException("client " + (read + r) + " names profile " + number + " of " + profiles);
                    }
                    visitor.client((long) LONG.get(block, at), (long) LONG.get(block, at + 8),
                            (long) LONG.get(block, at + 16), (long) LONG.get(block, at + 24), number);
                }
            }
        } catch (RuleValidationException e) {
            throw new IOException("an entry is invalid: " + e.getMessage(), e);
        }
        long computed = checked.getChecksum().getValue();
        if (in.readLong() != computed) {
            throw new IOException("checksum mismatch");
        }
        return header;
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
