package io.tollgate.rules.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Counters read once a step become the decisions of each step; restarts and the ring's bound. */
class DeltasTest {

    private static GatewayReading reading(double started, double errors, double answers, Object... counters) {
        Map<GatewayReading.Counter, Double> decisions = new java.util.HashMap<>();
        for (int i = 0; i < counters.length; i += 3) {
            decisions.put(new GatewayReading.Counter((String) counters[i], (String) counters[i + 1]),
                    ((Number) counters[i + 2]).doubleValue());
        }
        return new GatewayReading(decisions, "closed", errors, answers, started);
    }

    @Test
    void theFirstReadIsTheBaselineAndEachNextOneAddsWhatGrew() {
        Deltas deltas = new Deltas();
        assertThat(deltas.next(reading(1, 0, 10, "r", "allowed", 100, "r", "rejected", 7)).decisions()).isEmpty();

        Deltas.Step step = deltas.next(reading(1, 0, 20, "r", "allowed", 130, "r", "leased", 5, "r", "rejected", 7,
                "r", "cached_rejected", 2, "r", "blocked", 1, "r", "shadow_rejected", 4, "r", "fallback_allowed", 1,
                "r", "fallback_rejected", 2, "r", "something_new", 50));
        assertThat(step.decisions().get("r")).containsExactly(35, 3, 4, 3);
        assertThat(step.storeFailing()).isFalse();
    }

    @Test
    void aCounterThatWentDownOrANewStartTimeIsARestart() {
        Deltas deltas = new Deltas();
        deltas.next(reading(1, 0, 0, "r", "allowed", 100));
        assertThat(deltas.next(reading(1, 0, 0, "r", "allowed", 40)).decisions().get("r")[0])
                .as("went down: all of it is new").isEqualTo(40);
        assertThat(deltas.next(reading(2, 0, 0, "r", "allowed", 60)).decisions().get("r")[0])
                .as("a new process whose counter already passed the old value").isEqualTo(60);
    }

    @Test
    void aStoreFailsAStepWhenItErredAndAnsweredNothing() {
        Deltas deltas = new Deltas();
        deltas.next(reading(1, 5, 100));
        assertThat(deltas.next(reading(1, 9, 100)).storeFailing()).isTrue();
        assertThat(deltas.next(reading(1, 12, 101)).storeFailing()).isFalse();
        assertThat(deltas.next(reading(1, 12, 101)).storeFailing()).isFalse();
    }

    @Test
    void theWindowSumsGatewaysKeepsItsLastStepsAndFillsGapsWithZeros() {
        DecisionWindow window = new DecisionWindow(3);
        Map<String, long[]> first = new java.util.HashMap<>();
        DecisionWindow.addInto(first, Map.of("a", new long[]{1, 2, 0, 0}));
        DecisionWindow.addInto(first, Map.of("a", new long[]{10, 0, 0, 1}, "b", new long[]{0, 5, 0, 0}));
        window.add(1000, first);
        window.add(2000, Map.of("b", new long[]{0, 1, 0, 0}));
        window.add(3000, Map.of());
        window.add(4000, Map.of("b", new long[]{1, 0, 1, 0}));

        List<DecisionWindow.RuleSeries> series = window.series();
        assertThat(series).extracting(DecisionWindow.RuleSeries::id).as("a's step fell out of the ring")
                .containsExactly("b");
        assertThat(series.get(0).totals()).isEqualTo(new DecisionWindow.Totals(1, 1, 1, 0));
        assertThat(series.get(0).series()).containsExactly(new DecisionWindow.Point(2000, 0, 1, 0, 0),
                new DecisionWindow.Point(3000, 0, 0, 0, 0), new DecisionWindow.Point(4000, 1, 0, 1, 0));
    }
}
