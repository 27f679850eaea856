package io.tollgate.e2e.support;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

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
    /**
     * The over-admissions {@code gateways} counted for {@code rule} since {@code before}, waited for (at most
     * 5 s, while the store's late answers are on their way) until they reach {@code excess}: what passed beyond
     * a bucket's ceiling. A failure-mode decision that overlapped store checks of the same client may admit one
     * more; the store's late answer counts it, so only counted ones may pass the ceiling.
     */
    public static long overadmitted(List<JavaService> gateways, List<Metrics> before, String rule, long excess) {
        long[] counted = {0};
        try {
            Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).until(() -> {
                counted[0] = between(gateways, before, Metrics.ofEach(gateways), rule).stream()
                        .mapToLong(f -> Math.max(0, f.overadmitted()))
                        .sum();
                return counted[0] >= excess;
            });
        } catch (ConditionTimeoutException notCounted) {
            // the caller's assertion says what was counted
        }
        return counted[0];
    }

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
