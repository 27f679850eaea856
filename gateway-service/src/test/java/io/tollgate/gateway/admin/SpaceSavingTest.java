package io.tollgate.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class SpaceSavingTest {

    @Test
    void namesTheFloodingKeyAmongNoiseWithinItsBound() {
        SpaceSaving sketch = new SpaceSaving(16);
        Random random = new Random(42);
        Map<String, Long> truth = new HashMap<>();
        for (int i = 0; i < 100_000; i++) {
            // one client in ten requests is the flooder; the rest are 10,000 clients seen a few times each
            String key = i % 10 == 0 ? "flooder" : "noise-" + random.nextInt(10_000);
            truth.merge(key, 1L, Long::sum);
            sketch.add(key);
        }

        List<SpaceSaving.Entry> top = SpaceSaving.top(sketch, new SpaceSaving(16), 3);

        SpaceSaving.Entry first = top.get(0);
        assertThat(first.key()).isEqualTo("flooder");
        assertThat(first.count()).as("never undercounts").isGreaterThanOrEqualTo(truth.get("flooder"));
        assertThat(first.count() - first.error()).as("overcounts by at most its error")
                .isLessThanOrEqualTo(truth.get("flooder"));
        assertThat(first.error()).as("error bound: total / capacity").isLessThanOrEqualTo(100_000 / 16);
    }

    @Test
    void staysBoundedHoweverManyKeysArrive() {
        SpaceSaving sketch = new SpaceSaving(8);
        for (int i = 0; i < 50_000; i++) {
            sketch.add("client-" + i);
        }
        assertThat(sketch.size()).isEqualTo(8);
        assertThat(sketch.entries()).hasSize(8);
        assertThat(sketch.entries().stream().mapToLong(SpaceSaving.Entry::count).sum())
                .as("the counts still add up to every key seen").isEqualTo(50_000);
    }

    @Test
    void exactWhileEveryKeyHasACounter() {
        SpaceSaving sketch = new SpaceSaving(4);
        for (String key : List.of("a", "b", "a", "c", "a", "b")) {
            sketch.add(key);
        }
        assertThat(SpaceSaving.top(sketch, new SpaceSaving(4), 10)).containsExactly(
                new SpaceSaving.Entry("a", 3, 0), new SpaceSaving.Entry("b", 2, 0), new SpaceSaving.Entry("c", 1, 0));
        assertThat(sketch.floor()).as("room left: an unseen key was seen 0 times").isZero();
    }

    @Test
    void twoSketchesAddUpAndAnUnheldKeyMayHaveReachedTheFloor() {
        SpaceSaving older = new SpaceSaving(2);
        for (String key : List.of("a", "a", "a", "b", "b")) {
            older.add(key);
        }
        SpaceSaving newer = new SpaceSaving(2);
        for (String key : List.of("a", "c")) {
            newer.add(key);
        }

        // older is full with floor 2: c, which it does not hold, may have been seen there twice
        assertThat(SpaceSaving.top(older, newer, 3)).containsExactly(
                new SpaceSaving.Entry("a", 4, 0), new SpaceSaving.Entry("b", 3, 1), new SpaceSaving.Entry("c", 3, 2));
    }

    @Test
    void capacityMustHoldAKey() {
        assertThatThrownBy(() -> new SpaceSaving(0)).hasMessageContaining("capacity");
    }
}
