package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

/**
 * Calendar windows: where a day, an ISO week and a month start and end in UTC and in a zone with daylight
 * saving time, at fixed moments just before and after the boundaries; and the rules that may have them.
 */
class CalendarTest {

    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private final RuleCodec codec = new RuleCodec();

    @Test
    void aDayInUtcTurnsAtMidnight() {
        CalendarWindow before = CalendarWindow.at(Instant.parse("2026-12-05T23:59:59.999Z"), UTC,
                CalendarWindow.Length.DAY);
        CalendarWindow after = CalendarWindow.at(Instant.parse("2026-12-06T00:00:00Z"), UTC, CalendarWindow.Length.DAY);
        assertThat(before.label()).isEqualTo("2026-12-05");
        assertThat(before.end()).isEqualTo(Instant.parse("2026-12-06T00:00:00Z"));
        assertThat(after.label()).isEqualTo("2026-12-06");
        assertThat(after.start()).isEqualTo(before.end());
    }

    @Test
    void aDayInBerlinIs23Or25HoursWhenTheClocksChange() {
        // 2026-03-29: 02:00 CET becomes 03:00 CEST; 2026-10-25: 03:00 CEST becomes 02:00 CET
        CalendarWindow spring = CalendarWindow.at(Instant.parse("2026-03-29T12:00:00Z"), BERLIN,
                CalendarWindow.Length.DAY);
        assertThat(spring.start()).isEqualTo(Instant.parse("2026-03-28T23:00:00Z"));
        assertThat(spring.end()).isEqualTo(Instant.parse("2026-03-29T22:00:00Z"));
        assertThat(Duration.between(spring.start(), spring.end())).isEqualTo(Duration.ofHours(23));
        CalendarWindow autumn = CalendarWindow.at(Instant.parse("2026-10-25T12:00:00Z"), BERLIN,
                CalendarWindow.Length.DAY);
        assertThat(Duration.between(autumn.start(), autumn.end())).isEqualTo(Duration.ofHours(25));
        // Berlin's midnight before and after it: 22:59:59 UTC is still the 24th there in summer time
        assertThat(CalendarWindow.at(Instant.parse("2026-10-24T21:59:59Z"), BERLIN, CalendarWindow.Length.DAY)
                .label()).isEqualTo("2026-10-24");
        assertThat(CalendarWindow.at(Instant.parse("2026-10-24T22:00:00Z"), BERLIN, CalendarWindow.Length.DAY)
                .label()).isEqualTo("2026-10-25");
    }

    @Test
    void aMonthStartsOnTheFirstInItsZone() {
        CalendarWindow december = CalendarWindow.at(Instant.parse("2026-12-01T00:00:00Z"), UTC,
                CalendarWindow.Length.MONTH);
        assertThat(december.label()).isEqualTo("2026-12");
        assertThat(december.start()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(december.end()).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
        assertThat(CalendarWindow.at(Instant.parse("2026-11-30T23:59:59.999Z"), UTC, CalendarWindow.Length.MONTH)
                .label()).isEqualTo("2026-11");
        // in Berlin (UTC+1 in winter) December begins an hour before it does in UTC
        CalendarWindow berlin = CalendarWindow.at(Instant.parse("2026-11-30T23:30:00Z"), BERLIN,
                CalendarWindow.Length.MONTH);
        assertThat(berlin.label()).isEqualTo("2026-12");
        assertThat(berlin.start()).isEqualTo(Instant.parse("2026-11-30T23:00:00Z"));
    }

    @Test
    void aWeekRunsFromMondayAndIsNamedByItsIsoWeek() {
        CalendarWindow week = CalendarWindow.at(Instant.parse("2026-12-05T10:00:00Z"), UTC, CalendarWindow.Length.WEEK);
        assertThat(week.label()).isEqualTo("2026-W49");
        assertThat(week.start()).isEqualTo(Instant.parse("2026-11-30T00:00:00Z"));
        assertThat(week.end()).isEqualTo(Instant.parse("2026-12-07T00:00:00Z"));
        // 2027-01-01 is a Friday of ISO week 53 of 2026
        assertThat(CalendarWindow.at(Instant.parse("2027-01-01T00:00:00Z"), UTC, CalendarWindow.Length.WEEK).label())
                .isEqualTo("2026-W53");
    }

    @Test
    void aCalendarRuleIsAFixedWindowOfADayAWeekOrAMonthInAZoneThatExists() {
        Rule monthly = codec.parseRule("""
                {"id": "billing.monthly", "key": "api_key", "algorithm": "fixed_window", "limit": 100000,
                 "period": "P1M", "calendar": "Europe/Berlin"}""");
        assertThat(monthly.period()).isEqualTo(Periods.MONTH);
        assertThat(monthly.failureMode()).as("no share to give each gateway").isEqualTo(FailureMode.OPEN);
        assertThat(codec.write(monthly)).contains("\"period\":\"P1M\"").contains("\"calendar\":\"Europe/Berlin\"");
        assertThat(codec.parseRule(codec.write(monthly))).isEqualTo(monthly);
        assertThat(codec.parseRule("""
                {"id": "weekly", "key": "api_key", "algorithm": "fixed_window", "limit": 10, "period": "P1W",
                 "calendar": "UTC"}""").period()).isEqualTo(Duration.ofDays(7));

        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "bad", "key": "api_key", "limit": 10, "period": "1h", "calendar": "Mars/Olympus",
                 "failure_mode": "local"}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field)
                        .containsExactlyInAnyOrder("calendar", "algorithm", "period", "failure_mode"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "month", "key": "api_key", "algorithm": "fixed_window", "limit": 10, "period": "P1M"}"""))
                .isInstanceOfSatisfying(RuleValidationException.class, e -> assertThat(e.errors())
                        .extracting(FieldError::field).containsExactly("period"));
        assertThatThrownBy(() -> codec.parseRule("""
                {"id": "hidden", "key": "api_key", "algorithm": "calendar_window", "limit": 10, "period": "1d"}"""))
                .as("calendar_window is the scripts' name, not a rule's algorithm")
                .isInstanceOf(RuleValidationException.class);
    }
}
