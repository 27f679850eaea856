package io.tollgate.gateway.sync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff();

    @Test
    void refusalsWaitFromAHundredMillisecondsDoublingToFiveSeconds() {
        assertThat(backoff.refused()).isEqualTo(100);
        assertThat(backoff.firstRefusal()).as("the one worth a WARN").isTrue();
        assertThat(backoff.refused()).isEqualTo(200);
        assertThat(backoff.firstRefusal()).isFalse();
        assertThat(backoff.refused()).isEqualTo(400);
        for (int i = 0; i < 10; i++) {
            backoff.refused();
        }
        assertThat(backoff.refused()).as("bounded").isEqualTo(Backoff.MAX_MS);
    }

    @Test
    void aServedCallStartsTheNextStreakFromTheBeginning() {
        backoff.refused();
        backoff.refused();
        assertThat(backoff.served()).as("refusals the streak counted").isEqualTo(2);
        assertThat(backoff.served()).isZero();
        assertThat(backoff.refused()).isEqualTo(Backoff.FIRST_MS);
        assertThat(backoff.firstRefusal()).isTrue();
    }
}
