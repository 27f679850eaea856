package io.tollgate.e2e.support;

import java.util.List;
import java.util.stream.IntStream;

/**
 * What one gateway's failure mode did for one rule between two scrapes of its metrics: the decisions it took
 * instead of the store, the over-admissions the store's late answers revealed, and the store trouble that led
 * there. A count the later scrape has no series for is {@code -1} (the gateway does not export it, or has not
 * counted one yet), except the decisions, which count from 0.
 */
public record Fallbacks(String gateway, long allowed, long rejected, long overadmitted, long timeouts, long unanswered,
        long breakerOpen, long lateAnswers) {

    private static final String DECISIONS = "tollgate_decisions_total";
    private static final String OVERADMITTED = "tollgate_fallback_overadmitted_total";
    private static final String STORE_ERRORS = "tollgate_store_errors_total";
    private static final String LATE_ANSWERS = "tollgate_store_late_answers_total";

    /** The failure mode's work for {@code rule} on {@code gateway} from {@code before} to {@code after}. */
    public static Fallbacks between(String gateway, Metrics before, Metrics after, String rule) {
        return new Fallbacks(gateway,
                Math.round(after.since(before, DECISIONS, "rule=" + rule, "outcome=fallback_allowed")),
                Math.round(after.since(before, DECISIONS, "rule=" + rule, "outcome=fallback_rejected")),
                count(before, after, OVERADMITTED, "rule=" + rule),
                count(before, after, STORE_ERRORS, "kind=timeout"),
                count(before, after, STORE_ERRORS, "kind=unanswered"),
                count(before, after, STORE_ERRORS, "kind=breaker_open"),
                count(before, after, LATE_ANSWERS));
    }

    /** The same for each of {@code gateways}, from scrapes taken in their order ({@link Metrics#ofEach}). */
    public static List<Fallbacks> between(List<JavaService> gateways, List<Metrics> before, List<Metrics> after, String rule) {
        return IntStream.range(0, gateways.size())
                .mapToObj(i -> between(gateways.get(i).name(), before.get(i), after.get(i), rule))
                .toList();
    }

    /** Lines for a log: one per gateway. */
    public static String lines(List<Fallbacks> all) {
        return String.join("\n  ", all.stream().map(Fallbacks::toString).toList());
    }

    private static long count(Metrics before, Metrics after, String name, String... labels) {
        return after.has(name, labels) ? Math.round(after.since(before, name, labels)) : -1;
    }

    /** Decisions the failure mode took instead of the store. */
    public long decisions() {
        return allowed + rejected;
    }

    @Override
    public String toString() {
        return "%s: fallback_allowed %d, fallback_rejected %d, overadmitted %s; store timeouts %s, unanswered %s, breaker_open %s, late answers %s"
                .formatted(gateway, allowed, rejected, shown(overadmitted), shown(timeouts), shown(unanswered),
                        shown(breakerOpen), shown(lateAnswers));
    }

    private static String shown(long count) {
        return count < 0 ? "-" : Long.toString(count);
    }
}
