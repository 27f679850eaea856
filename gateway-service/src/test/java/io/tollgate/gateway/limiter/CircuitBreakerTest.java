package io.tollgate.gateway.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final AtomicLong nanos = new AtomicLong();
    private final CircuitBreaker breaker = new CircuitBreaker(3, 1_000_000_000L, nanos::get);

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
        nanos.addAndGet(1_000_000_000L);
        assertThat(breaker.allowsCall()).isTrue();
        breaker.failed();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        nanos.addAndGet(999_999_999L);
        assertThat(breaker.allowsCall()).isFalse();
    }

    @Test
    void aSuccessResetsTheCount() {
        breaker.failed();
        breaker.failed();
        breaker.succeeded();
        breaker.failed();
        breaker.failed();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }
}
