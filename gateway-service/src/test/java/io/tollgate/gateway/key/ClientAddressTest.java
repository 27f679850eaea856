package io.tollgate.gateway.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.config.ConfigError;

class ClientAddressTest {

    private final ClientAddress address = ClientAddress.trusting(List.of("10.0.0.0/8", "::1/128"));

    @Test
    void forwardedForFromAnUntrustedPeerIsIgnored() {
        assertThat(address.resolve("203.0.113.7", "198.51.100.1")).isEqualTo("203.0.113.7");
    }

    @Test
    void aTrustedPeerIsBelievedAndTrustedHopsAreSkippedFromTheRight() {
        assertThat(address.resolve("10.1.2.3", "198.51.100.1")).isEqualTo("198.51.100.1");
        assertThat(address.resolve("10.1.2.3", "1.1.1.1, 198.51.100.1, 10.9.9.9")).isEqualTo("198.51.100.1");
        assertThat(address.resolve("0:0:0:0:0:0:0:1", "2001:db8::5")).isEqualTo("2001:db8:0:0:0:0:0:5");
    }

    @Test
    void garbageInTheChainStopsAtTheLastVouchedAddress() {
        assertThat(address.resolve("10.1.2.3", "evil.example, 10.2.2.2")).isEqualTo("10.2.2.2");
        assertThat(address.resolve("10.1.2.3", "not-an-ip")).isEqualTo("10.1.2.3");
    }

    @Test
    void cidrBoundariesAreExact() {
        Cidr block = Cidr.parse("192.168.4.0/22").orElseThrow();
        assertThat(block.contains(Cidr.literal("192.168.7.255").orElseThrow())).isTrue();
        assertThat(block.contains(Cidr.literal("192.168.8.0").orElseThrow())).isFalse();
        assertThat(block.contains(Cidr.literal("::1").orElseThrow())).isFalse();
        assertThat(Cidr.parse("10.0.0.0/33")).isEmpty();
        assertThat(Cidr.parse("localhost")).as("no DNS").isEmpty();
    }

    @Test
    void aBadEntryFailsNamingTheKey() {
        assertThatThrownBy(() -> ClientAddress.trusting(List.of("10.0.0.0/8", "proxy.local")))
                .isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.trusted-proxies=proxy.local");
    }
}
