package io.tollgate.gateway.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.domain.ClientDigest;
import io.tollgate.rules.domain.ClientEntry;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryChanges.ClientChange;

class ClientTableTest {

    private static final ClientEntry FREE = new ClientEntry(null, "free", null, Map.of());
    private static final ClientEntry PRO = new ClientEntry("acme", "pro", "Acme", Map.of());

    @Test
    void pagesOfChangesAgreeWithAPlainMapAcrossEverySegment() {
        Random random = new Random(7);
        DirectoryWriter writer = new DirectoryWriter(DirectoryCopy.EMPTY);
        Map<String, ClientEntry> model = new HashMap<>();
        long seq = 0;
        for (int round = 0; round < 12; round++) {
            List<ClientChange> page = new java.util.ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                String key = "k-" + random.nextInt(10_000);
                ClientEntry entry = random.nextInt(4) == 0 ? null : random.nextBoolean() ? FREE : PRO;
                page.add(new ClientChange(ClientDigest.of(key), entry));
                if (entry == null) {
                    model.remove(key);
                } else {
                    model.put(key, entry);
                }
            }
            writer.apply(new DirectoryChanges(++seq, false, List.of(), page));
        }
        ClientTable table = writer.copy().clients();
        assertThat(table.size()).isEqualTo(model.size());
        for (int i = 0; i < 10_000; i++) {
            String key = "k-" + i;
            Profile found = Digests.find(table, Digests.of(key));
            ClientEntry expected = model.get(key);
            assertThat(found == null ? null : found.entry().plan()).as(key)
                    .isEqualTo(expected == null ? null : expected.plan());
        }
        assertThat(writer.profiles()).as("a few profiles for thousands of clients").isEqualTo(2);
        assertThat(writer.copy().seq()).isEqualTo(12);
    }

    @Test
    void pagesGatheredAndMergedAtOnceHoldWhatThePagesAppliedOneByOneDo() {
        Random random = new Random(5);
        DirectoryWriter oneByOne = new DirectoryWriter(DirectoryCopy.EMPTY);
        oneByOne.apply(new DirectoryChanges(1, false, List.of(), randomPage(random, 3_000)));
        DirectoryWriter atOnce = new DirectoryWriter(oneByOne.copy());
        GatheredPages gathered = new GatheredPages(1);
        for (int seq = 2; seq <= 6; seq++) {
            DirectoryChanges changes = new DirectoryChanges(seq, seq < 6, List.of(), randomPage(random, 1_500));
            oneByOne.apply(changes);
            gathered.apply(changes);
        }
        DirectoryCopy merged = atOnce.merge(gathered);
        assertThat(merged.seq()).isEqualTo(6);
        assertThat(merged.clients().size()).isEqualTo(oneByOne.copy().clients().size());
        assertThat(atOnce.profiles()).as("profiles no client holds are dropped").isEqualTo(oneByOne.profiles());
        for (int i = 0; i < 5_000; i++) {
            Profile a = Digests.find(oneByOne.copy().clients(), Digests.of("k-" + i));
            Profile b = Digests.find(merged.clients(), Digests.of("k-" + i));
            assertThat(b == null ? null : b.entry()).as("k-" + i).isEqualTo(a == null ? null : a.entry());
        }
    }

    /** {@code n} changes of clients k-0..k-4999, a third of them deletes. */
    private static List<ClientChange> randomPage(Random random, int n) {
        List<ClientChange> page = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            ClientEntry entry = random.nextInt(3) == 0 ? null : random.nextBoolean() ? FREE : PRO;
            page.add(new ClientChange(ClientDigest.of("k-" + random.nextInt(5_000)), entry));
        }
        return page;
    }

    @Test
    void aCopyBuiltFromNothingHoldsWhatThePagesAppliedOneByOneDo() {
        Random random = new Random(3);
        DirectoryWriter merged = new DirectoryWriter(DirectoryCopy.EMPTY);
        GatheredPages fresh = new GatheredPages(0);
        for (int seq = 1; seq <= 8; seq++) {
            List<ClientChange> page = new java.util.ArrayList<>();
            for (int i = 0; i < 1_500; i++) {
                ClientEntry entry = random.nextInt(3) == 0 ? null : random.nextBoolean() ? FREE : PRO;
                page.add(new ClientChange(ClientDigest.of("k-" + random.nextInt(5_000)), entry));
            }
            DirectoryChanges changes = new DirectoryChanges(seq, seq < 8, List.of(), page);
            merged.apply(changes);
            fresh.apply(changes);
        }
        DirectoryCopy built = fresh.build();
        assertThat(built.seq()).isEqualTo(8);
        assertThat(built.clients().size()).isEqualTo(merged.copy().clients().size());
        for (int i = 0; i < 5_000; i++) {
            Profile a = Digests.find(merged.copy().clients(), Digests.of("k-" + i));
            Profile b = Digests.find(built.clients(), Digests.of("k-" + i));
            assertThat(b == null ? null : b.entry()).as("k-" + i).isEqualTo(a == null ? null : a.entry());
        }
    }

    @Test
    void theLatestChangeOfADigestInOnePageWins() {
        DirectoryWriter writer = new DirectoryWriter(DirectoryCopy.EMPTY);
        String d = ClientDigest.of("twice");
        writer.apply(new DirectoryChanges(1, false, List.of(), List.of(new ClientChange(d, FREE), new ClientChange(d, PRO))));
        assertThat(Digests.find(writer.copy().clients(), Digests.of("twice")).tenant()).isEqualTo("acme");
        writer.apply(new DirectoryChanges(2, false, List.of(), List.of(new ClientChange(d, PRO), new ClientChange(d, null))));
        assertThat(Digests.find(writer.copy().clients(), Digests.of("twice"))).isNull();
        assertThat(writer.profiles()).as("no client holds a profile any more").isZero();
    }

    @Test
    void digestsCrowdedAwayFromWhereTheyShouldLieAreFoundAllTheSame() {
        ClientTable.Builder builder = new ClientTable.Builder();
        Profile p = Profile.of(FREE);
        for (long i = 0; i < 2_000; i++) {
            builder.add(new long[]{i * 2, 7, 7, i}, 0, p); // one segment, all where the first few should lie
        }
        ClientTable table = builder.build();
        for (long i = 0; i < 2_000; i++) {
            assertThat(table.find(i * 2, 7, 7, i)).as("entry " + i).isSameAs(p);
            assertThat(table.find(i * 2 + 1, 7, 7, i)).as("between " + i + " and the next").isNull();
            assertThat(table.find(i * 2, 7, 7, i + 1)).isNull();
        }
        assertThat(table.find(-1L, 0, 0, 0)).as("another segment").isNull();
    }

    @Test
    void aBuilderRefusesClientsOutOfOrder() {
        ClientTable.Builder builder = new ClientTable.Builder();
        Profile p = Profile.of(FREE);
        builder.add(new long[]{5, 0, 0, 2}, 0, p);
        assertThatThrownBy(() -> builder.add(new long[]{5, 0, 0, 1}, 0, p)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.add(new long[]{5, 0, 0, 2}, 0, p)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theDigestOfTheRequestPathIsTheDirectorysOwn() {
        DirectoryWriter writer = new DirectoryWriter(DirectoryCopy.EMPTY);
        String unicode = "clé-ü-" + "x".repeat(300); // not ASCII, and longer than the thread's buffer
        writer.apply(new DirectoryChanges(1, false, List.of(), List.of(new ClientChange(ClientDigest.of(unicode), FREE),
                new ClientChange(ClientDigest.of("ascii"), PRO))));
        assertThat(Digests.find(writer.copy().clients(), Digests.of(unicode))).isNotNull();
        assertThat(Digests.find(writer.copy().clients(), Digests.of("ascii"))).isNotNull();
        assertThat(Digests.find(writer.copy().clients(), Digests.of("asciI"))).isNull();
    }
}
