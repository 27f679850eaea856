package io.tollgate.rules.live;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The fleet's decisions per rule over the last {@code tollgate.live.window}, one entry per step: a ring of at
 * most window ÷ step steps, the oldest dropped as a new one comes. Each step holds, per rule, the decisions by
 * {@link Tally}, summed over the gateways read in it.
 */
public final class DecisionWindow {

    /** The decisions of one rule during one step ({@code at}: when the step was read, epoch ms). */
    public record Point(long at, long allowed, long rejected, long shadow, long fallback) {
    }

    /** The decisions of one rule over the whole window. */
    public record Totals(long allowed, long rejected, long shadow, long fallback) {
    }

    /** One rule's totals and its points, one per step of the window, oldest first (zeros where it had none). */
    public record RuleSeries(String id, Totals totals, List<Point> series) {
    }

    private record Step(long atMs, Map<String, long[]> byRule) {
    }

    private static final int ALLOWED = Tally.ALLOWED.ordinal();
    private static final int REJECTED = Tally.REJECTED.ordinal();
    private static final int SHADOW = Tally.SHADOW.ordinal();
    private static final int FALLBACK = Tally.FALLBACK.ordinal();

    private final int capacity;
    private final ArrayDeque<Step> steps;

    DecisionWindow(int capacity) {
        this.capacity = Math.max(1, capacity);
        this.steps = new ArrayDeque<>(this.capacity);
    }

    synchronized void add(long atMs, Map<String, long[]> byRule) {
        if (steps.size() == capacity) {
            steps.removeFirst();
        }
        steps.addLast(new Step(atMs, Map.copyOf(byRule)));
    }

    /** Every rule with a decision in the window, by id. */
    synchronized List<RuleSeries> series() {
        TreeSet<String> rules = new TreeSet<>();
        steps.forEach(step -> rules.addAll(step.byRule().keySet()));
        List<RuleSeries> out = new ArrayList<>(rules.size());
        for (String rule : rules) {
            long[] total = new long[Tally.count()];
            List<Point> points = new ArrayList<>(steps.size());
            for (Step step : steps) {
                long[] c = step.byRule().getOrDefault(rule, new long[Tally.count()]);
                for (int i = 0; i < total.length; i++) {
                    total[i] += c[i];
                }
                points.add(new Point(step.atMs(), c[ALLOWED], c[REJECTED], c[SHADOW], c[FALLBACK]));
            }
            out.add(new RuleSeries(rule, new Totals(total[ALLOWED], total[REJECTED], total[SHADOW], total[FALLBACK]),
                    points));
        }
        return out;
    }

    /** Adds {@code step}'s counts into {@code sum}, rule by rule. */
    static void addInto(Map<String, long[]> sum, Map<String, long[]> step) {
        step.forEach((rule, counts) -> {
            long[] into = sum.computeIfAbsent(rule, r -> new long[Tally.count()]);
            for (int i = 0; i < counts.length; i++) {
                into[i] += counts[i];
            }
        });
    }
}
