package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.domain.Settle;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/** Headers, response bytes and the {@code from} syntax; JSON bodies and event streams have tests of their own. */
class UsageMetersTest {

    private static Usage header(MultiMap headers) {
        UsageMeter meter = UsageMeters.header("X-Usage-Tokens");
        meter.head(200, headers);
        meter.body(Buffer.buffer("{\"X-Usage-Tokens\": 3}"));
        return meter.end();
    }

    @Test
    void aHeaderSaysItsWholeNumberInAnyCaseOfItsName() {
        assertThat(header(Feed.headers("x-usage-tokens", "42"))).isEqualTo(new Usage.Used(42));
        assertThat(header(Feed.headers("X-Usage-Tokens", " 007 "))).isEqualTo(new Usage.Used(7));
        assertThat(header(Feed.headers("X-Usage-Tokens", "9223372036854775807")))
                .isEqualTo(new Usage.Used(Long.MAX_VALUE));
    }

    @Test
    void aMissingHeaderSaysNothing() {
        assertThat(header(Feed.headers("X-Usage", "42"))).isEqualTo(Usage.ABSENT);
    }

    @Test
    void aHeaderThatIsNoWholeNumberIsInvalid() {
        for (String value : new String[]{"-3", "1.5", "1e3", "abc", "+5", "0x10", "1 2"}) {
            assertThat(header(Feed.headers("X-Usage-Tokens", value)))
                    .isEqualTo(new Usage.Invalid(value, "not a non-negative whole number"));
        }
        assertThat(header(Feed.headers("X-Usage-Tokens", ""))).isEqualTo(new Usage.Invalid("", "empty"));
        assertThat(header(Feed.headers("X-Usage-Tokens", "99999999999999999999")))
                .isEqualTo(new Usage.Invalid("99999999999999999999", "too large for a long"));
        assertThat(header(Feed.headers("X-Usage-Tokens", "1", "X-Usage-Tokens", "2")))
                .isEqualTo(new Usage.Invalid("1, 2", "the header appears more than once"));
        Usage.Invalid long_ = (Usage.Invalid) header(Feed.headers("X-Usage-Tokens", "z".repeat(500)));
        assertThat(long_.value()).as("kept short for a log line").isEqualTo("z".repeat(64));
    }

    @Test
    void responseBytesCountEveryChunk() {
        UsageMeter meter = UsageMeters.responseBytes();
        meter.head(200, Feed.JSON);
        long sent = 0;
        for (int size = 0; size < 300; size++) {
            meter.body(Buffer.buffer(new byte[size]));
            sent += size;
        }
        assertThat(meter.end()).isEqualTo(new Usage.Used(sent));
        assertThat(Feed.read(UsageMeters::responseBytes, "{\"é\": \"😀\"}")).as("bytes, not characters")
                .isEqualTo(new Usage.Used(14));
        assertThat(Feed.read(UsageMeters::responseBytes, "")).isEqualTo(new Usage.Used(0));
    }

    @Test
    void aRulesSettleMakesAFreshMeterPerAnswer() {
        Supplier<UsageMeter> meters = UsageMeters.of(new Settle("json:/usage/total_tokens"));
        assertThat(meters.get()).isNotSameAs(meters.get());
        assertThat(Feed.read(UsageMeters.of(new Settle("header:X-U")), Feed.headers("X-U", "4"), "")).isEqualTo(
                new Usage.Used(4));
        assertThat(Feed.read(meters, "{\"usage\": {\"total_tokens\": 12}}")).isEqualTo(new Usage.Used(12));
        assertThat(Feed.read(meters, "{\"usage\": {\"total_tokens\": 5}}")).isEqualTo(new Usage.Used(5));
        assertThat(Feed.read(UsageMeters.of(new Settle("response_bytes")), "abc"))
                .isEqualTo(new Usage.Used(3));
    }

    @Test
    void aPointerUnescapesItsSegments() {
        assertThat(JsonPointer.segments("/a~1b/~0/~01/")).containsExactly("a/b", "~", "~1", "");
        assertThat(JsonPointer.segments("")).isEmpty();
        assertThat(JsonPointer.segments("/")).containsExactly("");
        assertThatThrownBy(() -> JsonPointer.segments("/a~2"))
                .hasMessageContaining("\"~\"");
    }
}
