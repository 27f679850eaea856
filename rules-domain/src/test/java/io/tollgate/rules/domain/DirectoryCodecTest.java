package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** What the directory codec says about what it cannot read: where, and never the text, nor a key's value. */
class DirectoryCodecTest {

    private static final String KEY = "ak_live_0123456789abcdef";

    private final DirectoryCodec codec = new DirectoryCodec();

    @Test
    void aPageOfStoredEntriesReadsBackAsThePageOfTheirValues() {
        DirectoryCodec codec = new DirectoryCodec();
        ClientEntry pro = new ClientEntry("acme", "pro", "Acme web", java.util.Map.of());
        TenantEntry acme = new TenantEntry("enterprise", "Acme", java.util.Map.of());
        String digest = ClientDigest.of("ak_1");
        String gone = ClientDigest.of("ak_2");
        String page = codec.writeChanges(42, true,
                java.util.List.of(new DirectoryCodec.StoredChange("acme", codec.write(acme))),
                java.util.List.of(new DirectoryCodec.StoredChange(digest, codec.write(pro)),
                        new DirectoryCodec.StoredChange(gone, null)));

        DirectoryChanges read = codec.parseChanges(page.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(read.seq()).isEqualTo(42);
        assertThat(read.more()).isTrue();
        assertThat(read.tenants()).containsExactly(new DirectoryChanges.TenantChange("acme", acme));
        assertThat(read.clients()).containsExactly(new DirectoryChanges.ClientChange(digest, pro),
                new DirectoryChanges.ClientChange(gone, null));
    }

    @Test
    void textThatIsNotJsonIsNotQuoted() {
        assertThat(refused(KEY)).containsExactly(new FieldError("", null, "not valid JSON (line 1, column 1)"));
        assertThat(refused("{\"key\": \"" + KEY + "\", ")).extracting(FieldError::reason)
                .allMatch(r -> r.startsWith("not valid JSON (line 1, column "));
    }

    @Test
    void aKeyFieldIsRefusedWithoutItsValue() {
        assertThat(refused("{\"key\": \"" + KEY + "\", \"plan\": \"pro\"}"))
                .containsExactly(new FieldError("key", null, "unknown field"));
        assertThat(refused("\"" + KEY + "\"")).extracting(FieldError::value).containsOnlyNulls();
    }

    @Test
    void textAfterTheEntryIsRefused() {
        assertThat(refused("{\"plan\": \"pro\"} {\"plan\": \"free\"}")).extracting(FieldError::field).containsExactly("");
    }

    private java.util.List<FieldError> refused(String body) {
        RuleValidationException e = catchThrowableOfType(RuleValidationException.class,
                () -> codec.parseClient(body.getBytes(StandardCharsets.UTF_8)));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).doesNotContain(KEY);
        assertThat(e.errors()).allMatch(error -> !String.valueOf(error.value()).contains(KEY)
                && !error.reason().contains(KEY));
        return e.errors();
    }
}
