package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** THE form of a whole directory copy: what is written is read back, and a copy that is not whole is refused. */
class DirectoryCopyFormatTest {

    /** What a copy held, as read. */
    private static final class Seen implements DirectoryCopyFormat.Visitor {

        final List<String> tenants = new ArrayList<>();
        final List<ClientEntry> profiles = new ArrayList<>();
        final List<long[]> clients = new ArrayList<>();

        @Override
        public void tenant(String id, TenantEntry entry) {
            tenants.add(id + "=" + entry.plan());
        }

        @Override
        public void profile(ClientEntry entry) {
            profiles.add(entry);
        }

        @Override
        public void client(long a, long b, long c, long d, int profile) {
            clients.add(new long[]{a, b, c, d, profile});
        }
    }

    @Test
    void aCopyIsReadBackAsWritten() throws IOException {
        byte[] copy = copy(1);
        Seen seen = new Seen();
        DirectoryCopyFormat.Header header = DirectoryCopyFormat.read(new ByteArrayInputStream(copy), seen);
        assertThat(header).isEqualTo(new DirectoryCopyFormat.Header("test", 42));
        assertThat(seen.tenants).containsExactly("acme=enterprise");
        assertThat(seen.profiles).extracting(ClientEntry::plan).containsExactly("pro", "free");
        assertThat(seen.profiles.get(0).tenant()).isEqualTo("acme");
        assertThat(seen.clients).containsExactly(new long[]{1, 2, 3, 4, 0}, new long[]{-1, 0, 0, 7, 1});
        assertThat(copy.length).as("36 bytes a client beyond the entries").isEqualTo(copy(0).length + 36);
    }

    @Test
    void aProfileNumberOutOfRangeAnInvalidEntryOrAnotherFileIsRefused() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DirectoryCopyFormat.Writer writer = new DirectoryCopyFormat.Writer(out, "test", 1);
        writer.tenants(0);
        writer.profiles(1);
        writer.profile("{\"plan\": \"pro\"}");
        writer.clients(1);
        writer.client(1, 2, 3, 4, 1);
        writer.finish();
        assertThatThrownBy(() -> read(out.toByteArray())).isInstanceOf(IOException.class)
                .hasMessage("client 0 names profile 1 of 1");

        out.reset();
        writer = new DirectoryCopyFormat.Writer(out, "test", 1);
        writer.tenants(0);
        writer.profiles(1);
        writer.profile("{\"plan\": \"pro\", \"limit\": 5}");
        writer.clients(0);
        writer.finish();
        assertThatThrownBy(() -> read(out.toByteArray())).isInstanceOf(IOException.class)
                .hasMessageContaining("an entry is invalid").hasMessageContaining("limit");

        assertThatThrownBy(() -> read("{\"seq\": 1}".getBytes())).isInstanceOf(IOException.class)
                .hasMessage("not a directory copy");
    }

    @Test
    void aCopyAlteredOrCutShortIsRefused() throws IOException {
        byte[] copy = copy(1);
        byte[] altered = copy.clone();
        altered[altered.length - 20] ^= 1; // a bit of the last client's digest
        assertThatThrownBy(() -> read(altered)).isInstanceOf(IOException.class).hasMessage("checksum mismatch");
        for (int cut : new int[]{copy.length - 1, copy.length - 20, 10}) {
            assertThatThrownBy(() -> read(Arrays.copyOf(copy, cut))).as("cut at " + cut)
                    .isInstanceOf(IOException.class);
        }
    }

    @Test
    void aWriterWritesTheCountsItSaid() throws IOException {
        DirectoryCopyFormat.Writer writer = new DirectoryCopyFormat.Writer(new ByteArrayOutputStream(), "test", 1);
        writer.tenants(2);
        writer.tenant("acme", "{}");
        assertThatThrownBy(() -> writer.profiles(0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("1 written where 2 were said");
    }

    /** A copy of one tenant, two profiles and two clients, and the second client {@code second} times. */
    private static byte[] copy(int second) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DirectoryCopyFormat.Writer writer = new DirectoryCopyFormat.Writer(out, "test", 42);
        writer.tenants(1);
        writer.tenant("acme", "{\"plan\": \"enterprise\"}");
        writer.profiles(2);
        writer.profile("{\"tenant\": \"acme\", \"plan\": \"pro\"}");
        writer.profile("{\"plan\": \"free\"}");
        writer.clients(1 + second);
        writer.client(1, 2, 3, 4, 0);
        for (int i = 0; i < second; i++) {
            writer.client(-1, 0, 0, 7, 1);
        }
        writer.finish();
        return out.toByteArray();
    }

    private static DirectoryCopyFormat.Header read(byte[] copy) throws IOException {
        return DirectoryCopyFormat.read(new ByteArrayInputStream(copy), new Seen());
    }
}
