package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.config.ConfigError;

class ClientIdleTimeoutCheckTest {

    private static final Duration UPSTREAM = Duration.ofSeconds(30);

    @Test
    void aClientIdleTimeoutNotLongerThanTheUpstreamTimeoutFailsTheStartNamingItsKey() {
        for (Duration idle : new Duration[]{Duration.ofSeconds(30), Duration.ofSeconds(5)}) {
            assertThatThrownBy(() -> ReverseProxy.checkClientIdleTimeout(Optional.of(idle), UPSTREAM))
                    .isInstanceOf(ConfigError.class)
                    .hasMessageStartingWith("quarkus.http.idle-timeout=" + idle)
                    .hasMessageContaining("tollgate.gateway.upstream-timeout");
        }
    }

    @Test
    void longerOrNoneOrDisabledIsAccepted() {
        assertThatCode(() -> ReverseProxy.checkClientIdleTimeout(Optional.of(Duration.ofSeconds(75)), UPSTREAM))
                .doesNotThrowAnyException();
        assertThatCode(() -> ReverseProxy.checkClientIdleTimeout(Optional.empty(), UPSTREAM))
                .doesNotThrowAnyException();
        assertThatCode(() -> ReverseProxy.checkClientIdleTimeout(Optional.of(Duration.ZERO), UPSTREAM))
                .doesNotThrowAnyException();
    }
}
