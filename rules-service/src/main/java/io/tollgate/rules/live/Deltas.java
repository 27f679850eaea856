package io.tollgate.rules.live;

import java.util.HashMap;
import java.util.Map;

/**
 * Turns one gateway's counters, read once a step, into what happened during each step. The first read is the
 * baseline (what the gateway counted before it belongs to no step). A counter that went down, or a new process
 * start time, means the gateway restarted: its counters started again from 0, so their whole value is new.
 * Not thread-safe: the sampler reads each gateway once at a time.
 */
final class Deltas {

    /**
     * What one gateway did during one step.
     *
     * @param decisions
     * per rule, the decisions by {@link Tally} (indexed by ordinal)
     * @param storeFailing
     * its store failed calls and answered none
     */
    record Step(Map<String, long[]> decisions, boolean storeFailing) {
    }

    private GatewayReading last;

    Step next(GatewayReading now) {
        GatewayReading before = last;
        last = now;
        if (before == null) {
            return new Step(Map.of(), false);
        }
        boolean restarted = !Double.isNaN(before.startedAt()) && !Double.isNaN(now.startedAt())
                && before.startedAt() != now.startedAt();
        Map<String, long[]> decisions = new HashMap<>();
        now.decisions().forEach((counter, value) -> {
            Tally tally = Tally.of(counter.outcome());
            if (tally != null) {
                double was = restarted ? 0 : before.decisions().getOrDefault(counter, 0.0);
                long added = Math.round(increase(was, value));
                if (added > 0) {
                    decisions.computeIfAbsent(counter.rule(), rule -> new long[Tally.count()])[tally.ordinal()] += added;
                }
            }
        });
        double errors = increase(restarted ? 0 : before.storeErrors(), now.storeErrors());
        double answers = increase(restarted ? 0 : before.storeAnswers(), now.storeAnswers());
        return new Step(decisions, errors > 0 && answers == 0);
    }

    /** How much a counter grew from {@code before} to {@code now}; all of {@code now} when it went down (a restart). */
    static double increase(double before, double now) {
        return now < before ? now : now - before;
    }
}
