package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class PeriodsTest {

    @Test
    void parsesShortUnitsAndIso() {
        assertThat(Periods.parse("1s")).contains(Duration.ofSeconds(1));
        assertThat(Periods.parse("10s")).contains(Duration.ofSeconds(10));
        assertThat(Periods.parse("1m")).contains(Duration.ofMinutes(1));
        assertThat(Periods.parse("1h")).contains(Duration.ofHours(1));
        assertThat(Periods.parse("1d")).contains(Duration.ofDays(1));
        assertThat(Periods.parse("PT30S")).contains(Duration.ofSeconds(30));
        assertThat(Periods.parse("PT0.5S")).contains(Duration.ofMillis(500));
    }

    @Test
    void rejectsOtherText() {
        for (String bad : new String[]{null, "", "0s", "-1s", "1", "s", "1.5s", "1 s", "1w", "1S", "PT0S", "PT-1S",
                "soon"}) {
            assertThat(Periods.parse(bad)).as(String.valueOf(bad)).isEmpty();
        }
    }

    @Test
    void formatsInTheLargestWholeUnit() {
        assertThat(Periods.format(Duration.ofSeconds(1))).isEqualTo("1s");
        assertThat(Periods.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Periods.format(Duration.ofSeconds(60))).isEqualTo("1m");
        assertThat(Periods.format(Duration.ofMinutes(120))).isEqualTo("2h");
        assertThat(Periods.format(Duration.ofHours(48))).isEqualTo("2d");
        assertThat(Periods.format(Duration.ofMillis(1500))).isEqualTo("PT1.5S");
    }
}
