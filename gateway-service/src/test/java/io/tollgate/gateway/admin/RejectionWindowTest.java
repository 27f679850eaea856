package io.tollgate.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RejectionWindowTest {

    private static final long HALF = 60_000_000_000L;

    private final AtomicLong now = new AtomicLong(5_000);
    private final RejectionWindow window = new RejectionWindow(4, HALF, now::get);

    @Test
    void countsTheCurrentHalfAndTheOneBefore() {
        add("a", 3);
        now.addAndGet(HALF);
        add("a", 2);
        add("b", 1);
        now.addAndGet(HALF / 2);

        RejectionWindow.Top top = window.top(10);

        assertThat(top.entries()).containsExactly(new SpaceSaving.Entry("a", 5, 0), new SpaceSaving.Entry("b", 1, 0));
        assertThat(top.coversNanos()).isEqualTo(HALF + HALF / 2);
    }

    @Test
    void aClientThatStoppedFallsOutWithinTwoHalves() {
        add("flooder", 100);
        now.addAndGet(HALF);
        add("other", 1);
        assertThat(window.top(1).entries()).extracting(SpaceSaving.Entry::key).containsExactly("flooder");

        now.addAndGet(HALF);
        assertThat(window.top(10).entries()).extracting(SpaceSaving.Entry::key).containsExactly("other");

        now.addAndGet(5 * HALF);
        assertThat(window.top(10).entries()).isEmpty();
        assertThat(window.top(10).coversNanos()).as("halves stay aligned to the first").isEqualTo(HALF);
    }

    private void add(String key, int times) {
        for (int i = 0; i < times; i++) {
            window.add(key);
        }
    }
}
