package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import io.tollgate.gateway.config.ConfigError;

class UpstreamTlsTest {

    /** A registry without any named configuration. */
    private static final TlsConfigurationRegistry EMPTY = new TlsConfigurationRegistry() {

        @Override
        public Optional<TlsConfiguration> get(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<TlsConfiguration> getDefault() {
            return Optional.empty();
        }

        @Override
        public void register(String name, TlsConfiguration configuration) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void noNameIsTheJvmsTrustStore() {
        assertThat(UpstreamTls.resolve(Optional.empty(), EMPTY)).isNull();
    }

    @Test
    void aNameNoConfigurationHasStopsTheStartNamingTheKey() {
        assertThatThrownBy(() -> UpstreamTls.resolve(Optional.of("upstraem"), EMPTY))
                .isInstanceOf(ConfigError.class)
                .hasMessageContaining("tollgate.gateway.upstream-tls-configuration-name=upstraem")
                .hasMessageContaining("quarkus.tls.upstraem.trust-store");
    }
}
