package io.tollgate.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.config.ConfigError;

/** The penalty's arithmetic, on a fake clock: more than max-closes within the window, once per penalty, bounded. */
class RepeatOffendersTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private RepeatOffenders offenders(int maxCloses, int maxPeers) {
        return new RepeatOffenders(maxCloses, Duration.ofMinutes(1), Duration.ofMinutes(5), maxPeers, now::get);
    }

    private void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }

    @Test
    void oneCloseMoreThanMaxClosesWithinTheWindowStartsThePenaltyOnce() {
        RepeatOffenders offenders = offenders(2, 10);
        assertThat(offenders.closedForFlooding("10.0.0.1")).isFalse();
        assertThat(offenders.closedForFlooding("10.0.0.1")).isFalse();
        assertThat(offenders.penalised("10.0.0.1")).isFalse();
        assertThat(offenders.closedForFlooding("10.0.0.1")).as("the third close").isTrue();
        assertThat(offenders.penalised("10.0.0.1")).isTrue();
        assertThat(offenders.closedForFlooding("10.0.0.1")).as("a close during the penalty starts none").isFalse();
        assertThat(offenders.penalised("10.0.0.2")).as("another peer").isFalse();
    }

    @Test
    void closesOlderThanTheWindowDoNotCount() {
        RepeatOffenders offenders = offenders(1, 10);
        offenders.closedForFlooding("10.0.0.1");
        advance(Duration.ofSeconds(61));
        assertThat(offenders.closedForFlooding("10.0.0.1")).as("the first close is out of the window").isFalse();
        advance(Duration.ofSeconds(59));
        assertThat(offenders.closedForFlooding("10.0.0.1")).isTrue();
    }

    @Test
    void thePenaltyEndsAfterItsDuration() {
        RepeatOffenders offenders = offenders(0, 10);
        assertThat(offenders.closedForFlooding("10.0.0.1")).isTrue();
        advance(Duration.ofMinutes(5).minusNanos(1));
        assertThat(offenders.penalised("10.0.0.1")).isTrue();
        advance(Duration.ofNanos(1));
        assertThat(offenders.penalised("10.0.0.1")).isFalse();
        assertThat(offenders.closedForFlooding("10.0.0.1")).as("a close after it starts the next").isTrue();
    }

    @Test
    void pastMaxPeersIdlePeersAreForgottenAndNewOnesGoUncountedUntilThereIsRoom() {
        RepeatOffenders offenders = offenders(0, 2);
        offenders.closedForFlooding("10.0.0.1");
        offenders.closedForFlooding("10.0.0.2");
        assertThat(offenders.closedForFlooding("10.0.0.3")).as("no room: both under a penalty").isFalse();
        assertThat(offenders.size()).isEqualTo(2);
        advance(Duration.ofMinutes(5));
        assertThat(offenders.closedForFlooding("10.0.0.3")).as("room, once the penalties ended").isTrue();
        assertThat(offenders.size()).isEqualTo(1);
    }

    @Test
    void aBadSettingNamesItsKey() {
        assertThatThrownBy(() -> offenders(-1, 10)).isInstanceOf(ConfigError.class)
                .hasMessageContaining("tollgate.gateway.repeat-offenders.max-closes");
        assertThatThrownBy(() -> new RepeatOffenders(1, Duration.ZERO, Duration.ofMinutes(1), 10, now::get))
                .isInstanceOf(ConfigError.class).hasMessageContaining("tollgate.gateway.repeat-offenders.window");
        assertThatThrownBy(() -> new RepeatOffenders(1, Duration.ofMinutes(1), Duration.ZERO, 10, now::get))
                .isInstanceOf(ConfigError.class).hasMessageContaining("tollgate.gateway.repeat-offenders.penalty");
        assertThatThrownBy(() -> offenders(1, 0)).isInstanceOf(ConfigError.class)
                .hasMessageContaining("tollgate.gateway.repeat-offenders.max-peers");
    }
}
