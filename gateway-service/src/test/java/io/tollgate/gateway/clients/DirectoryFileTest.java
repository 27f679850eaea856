package io.tollgate.gateway.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryChanges.ClientChange;
import io.tollgate.rules.domain.DirectoryChanges.TenantChange;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Limits;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.TenantEntry;

/** The snapshot form: what is written is read back whole; a file cut short or altered is refused. */
class DirectoryFileTest {

    private static final Rule RULE = Rule.of("r", "/**", KeySpec.API_KEY, 10, Duration.ofMinutes(1))
            .withPlans(Map.of("pro", new Limits(100L, null, null)));

    @Test
    void aCopyWrittenIsReadBackWithItsTenantsPlansAndOverrides() throws IOException {
        Directory written = directoryWith(5_000);
        byte[] file = save(written);
        assertThat(file.length).as("about 36 bytes a client").isLessThan(5_000 * 40 + 1_000);

        Directory read = new Directory(new SimpleMeterRegistry());
        assertThat(read.restore(new ByteArrayInputStream(file))).isEqualTo("http://rules:8081");
        assertThat(read.seq()).isEqualTo(42);
        assertThat(read.size()).isEqualTo(5_000);
        assertThat(read.client("k-17").effective(RULE).source()).isEqualTo("plan:pro");
        assertThat(read.client("k-3").effective(RULE).limit()).as("an override").isEqualTo(7);
        assertThat(read.client("k-4").effective(RULE).source()).as("its tenant's plan").isEqualTo("plan:pro");
        assertThat(read.client("k-5000").known()).isFalse();
        assertThat(save(read)).as("the same copy, the same bytes").isEqualTo(file);
    }

    @Test
    void aFileCutShortOrAlteredIsRefusedAndTheCopyStaysAsItWas() throws IOException {
        byte[] file = save(directoryWith(100));
        Directory read = directoryWith(3);
        byte[] cut = Arrays.copyOf(file, file.length - 20);
        assertThatThrownBy(() -> read.restore(new ByteArrayInputStream(cut))).isInstanceOf(IOException.class);
        byte[] altered = file.clone();
        altered[altered.length - 30] ^= 1;
        assertThatThrownBy(() -> read.restore(new ByteArrayInputStream(altered))).isInstanceOf(IOException.class);
        assertThat(read.size()).isEqualTo(3);
    }

    private static Directory directoryWith(int clients) {
        Directory directory = new Directory(new SimpleMeterRegistry());
        List<ClientChange> changes = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            ClientEntry entry = i % 4 == 3
                    ? new ClientEntry(null, null, "label " + i, Map.of("r", new Limits(7L, null, null)))
                    : i % 4 == 0
                            ? new ClientEntry("acme", null, null, Map.of())
                            : new ClientEntry(null, "pro", null, Map.of());
            changes.add(new ClientChange(ClientDigest.of("k-" + i), entry));
        }
        directory.apply(new DirectoryChanges(42, false,
                List.of(new TenantChange("acme", new TenantEntry("pro", null, Map.of()))), changes));
        return directory;
    }

    private static byte[] save(Directory directory) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        directory.save(out, "http://rules:8081");
        return out.toByteArray();
    }
}
