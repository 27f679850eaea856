package io.tollgate.gateway.limiter.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final AtomicLong nanos = new AtomicLong();
    private final CircuitBreaker breaker = new CircuitBreaker(5, 0.6, 1_000_000_000L, nanos::get);

    @Test
    void opensAfterConsecutiveFailuresProbesOnceAfterTheWaitAndClosesOnSuccess() {
        breaker.failed();
        breaker.failed();
        assertThat(breaker.allowsCall()).isTrue();
        breaker.failed();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.allowsCall()).isFalse();
        nanos.addAndGet(1_000_000_000L);
        assertThat(breaker.allowsCall()).as("the one probe").isTrue();
        assertThat(breaker.allowsCall()).as("no second probe while one is out").isFalse();
        breaker.succeeded();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.allowsCall()).isTrue();
    }

    @Test
    void aFailedProbeOpensAgainForAnotherWait() {
        for (int i = 0; i < 3; i++) {
            breaker.failed();
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        nanos.addAndGet(1_000_000_000L);
        assertThat(breaker.allowsCall()).isTrue();
        breaker.failed();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        nanos.addAndGet(999_999_999L);
        assertThat(breaker.allowsCall()).isFalse();
    }

    @Test
    void aShareOfFailuresBelowTheRateKeepsItClosed() {
        // one dead shard of three: every third check fails, for as long as it takes
        for (int i = 0; i < 300; i++) {
            if (i % 3 == 0) {
                breaker.failed();
            } else {
                breaker.succeeded();
            }
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void failuresOutsideTheWindowAreForgotten() {
        breaker.failed();
        breaker.failed();
        for (int i = 0; i < 5; i++) {
            breaker.succeeded();
        }
        breaker.failed();
        breaker.failed();
        assertThat(breaker.state()).as("2 of the last 5 failed").isEqualTo(CircuitBreaker.State.CLOSED);
        breaker.failed();
        assertThat(breaker.state()).as("3 of the last 5 failed").isEqualTo(CircuitBreaker.State.OPEN);
    }
}
