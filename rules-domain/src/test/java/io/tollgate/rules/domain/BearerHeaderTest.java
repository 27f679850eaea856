package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class BearerHeaderTest {

    @Test
    void oneBearerTokenInAnyCaseOfTheSchemeIsRead() {
        assertThat(BearerHeader.parse(List.of("Bearer abc-1.2~x/+=")).token()).isEqualTo("abc-1.2~x/+=");
        assertThat(BearerHeader.parse(List.of("bearer abc")).token()).isEqualTo("abc");
        assertThat(BearerHeader.parse(List.of("BEARER abc")).kind()).isEqualTo(BearerHeader.Kind.TOKEN);
    }

    @Test
    void noHeaderIsAbsent() {
        assertThat(BearerHeader.parse(List.of()).kind()).isEqualTo(BearerHeader.Kind.ABSENT);
        assertThat(BearerHeader.parse(null).kind()).isEqualTo(BearerHeader.Kind.ABSENT);
    }

    @Test
    void everyOtherSpellingIsMalformed() {
        for (String value : List.of("Bearer  abc", "Bearer abc ", "Bearer\tabc", "Bearer ", "Bearer", "Basic YTpi",
                "Bearerabc", " Bearer abc", "Bearer a b", "Bearer ab\u00e9")) {
            assertThat(BearerHeader.parse(List.of(value)).kind()).as(value).isEqualTo(BearerHeader.Kind.MALFORMED);
        }
        assertThat(BearerHeader.parse(List.of("Bearer a", "Bearer a")).kind()).isEqualTo(BearerHeader.Kind.MALFORMED);
    }
}
