package io.tollgate.gateway.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RejectionCacheTest {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final RejectionCache cache = new RejectionCache(nanos::get);

    @Test
    void remembersUntilTheRetryTimeExactly() {
        cache.remember("rl:a:{k}", 1500);
        assertThat(cache.remainingMs("rl:a:{k}")).isEqualTo(1500);
        nanos.addAndGet(1_499_000_000L);
        assertThat(cache.remainingMs("rl:a:{k}")).isEqualTo(1);
        nanos.addAndGet(1_000_000L);
        assertThat(cache.remainingMs("rl:a:{k}")).isZero();
        assertThat(cache.remainingMs("rl:other:{k}")).isZero();
    }

    @Test
    void aNeverPassingRequestIsNotRemembered() {
        cache.remember("rl:a:{k}", -1);
        assertThat(cache.remainingMs("rl:a:{k}")).isZero();
    }
}
