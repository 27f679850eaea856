package io.tollgate.rules.domain;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The wire form of a rule's period: a whole number with {@code s}, {@code m}, {@code h} or {@code d}
 * ({@code 10s}, {@code 1m}), or ISO-8601 ({@code PT30S}); {@code P1W} is a week, and {@code P1M} a month, which
 * only a calendar window may count by ({@link #MONTH} stands for it).
 */
public final class Periods {

    private static final Pattern SHORT = Pattern.compile("([0-9]{1,9})([smhd])");
    /** A week, as a period: {@code P1W}, written {@code 7d}. */
    public static final Duration WEEK = Duration.ofDays(7);
    /**
     * A calendar month, as a period: {@code P1M}. Stands for the month (its length varies), with the average
     * Gregorian month's length ({@link ChronoUnit#MONTHS}) as its duration.
     */
    public static final Duration MONTH = ChronoUnit.MONTHS.getDuration();

    private Periods() {
    }

    /** The duration a wire form names, or empty when it is not one (zero and negative included). */
    public static Optional<Duration> parse(String wire) {
        if (wire == null) {
            return Optional.empty();
        }
        if (wire.equals("P1M")) {
            return Optional.of(MONTH);
        }
        if (wire.equals("P1W")) {
            return Optional.of(WEEK);
        }
        Matcher m = SHORT.matcher(wire);
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } else {
            try {
                d = Duration.parse(wire);
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        return d.isNegative() || d.isZero() ? Optional.empty() : Optional.of(d);
    }

    /**
     * The stable wire form of a period: the largest whole unit among d, h, m, s ({@code 60s} is written
     * {@code 1m}); a period with a fraction of a second is written in ISO-8601 ({@code PT0.5S}).
     */
    public static String format(Duration period) {
        if (period.equals(MONTH)) {
            return "P1M";
        }
        if (period.getNano() != 0) {
            return period.toString();
        }
        long s = period.getSeconds();
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3_600 == 0) {
            return s / 3_600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
