package io.tollgate.rules.domain;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.Optional;

/**
 * One window of a calendar rule ({@code fixed_window} with {@code calendar}): the day, ISO week (from Monday) or
 * month that {@code now} falls in, in the rule's time zone, from its first midnight to the next window's. A
 * midnight that a change to daylight saving time skips starts the day at the first moment that exists (Java's
 * {@code atStartOfDay}); a day is 23 or 25 hours long when the clocks change. The label names the window in its
 * counter key, so a bucket's key changes at the boundary.
 *
 * @param start the window's first moment
 * @param end the next window's first moment
 * @param label {@code 2026-12-05}, {@code 2026-W49} or {@code 2026-12}
 */
public record CalendarWindow(Instant start, Instant end, String label) {

    /** The periods a calendar window may have. */
    public enum Length {
        DAY, WEEK, MONTH
    }

    /** The length a calendar rule's period names: {@code 1d}, {@code P1W} (7d) or {@code P1M}; else empty. */
    public static Optional<Length> length(Duration period) {
        if (period == null) {
            return Optional.empty();
        }
        if (period.equals(Duration.ofDays(1))) {
            return Optional.of(Length.DAY);
        }
        if (period.equals(Periods.WEEK)) {
            return Optional.of(Length.WEEK);
        }
        return period.equals(Periods.MONTH) ? Optional.of(Length.MONTH) : Optional.empty();
    }

    /** The zone {@code calendar} names ({@code UTC} or an IANA zone such as {@code Europe/Berlin}), or empty. */
    public static Optional<ZoneId> zone(String calendar) {
        if (calendar == null || calendar.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ZoneId.of(calendar));
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The window of {@code length} in {@code zone} that {@code now} falls in.
     */
    public static CalendarWindow at(Instant now, ZoneId zone, Length length) {
        LocalDate day = now.atZone(zone).toLocalDate();
        return switch (length) {
            case DAY -> new CalendarWindow(day.atStartOfDay(zone).toInstant(),
                    day.plusDays(1).atStartOfDay(zone).toInstant(), day.toString());
            case WEEK -> {
                LocalDate monday = day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                yield new CalendarWindow(monday.atStartOfDay(zone).toInstant(),
                        monday.plusWeeks(1).atStartOfDay(zone).toInstant(),
                        String.format("%d-W%02d", monday.get(IsoFields.WEEK_BASED_YEAR),
                                monday.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR)));
            }
            case MONTH -> {
                LocalDate first = day.withDayOfMonth(1);
                yield new CalendarWindow(first.atStartOfDay(zone).toInstant(),
                        first.plusMonths(1).atStartOfDay(zone).toInstant(),
                        String.format("%d-%02d", first.getYear(), first.getMonthValue()));
            }
        };
    }

    /** Whether {@code now} falls in this window. */
    public boolean holds(Instant now) {
        return !now.isBefore(start) && now.isBefore(end);
    }
}
