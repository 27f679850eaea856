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
