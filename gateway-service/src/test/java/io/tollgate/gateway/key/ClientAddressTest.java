package io.tollgate.gateway.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.tollgate.gateway.config.ConfigError;

class ClientAddressTest {

    private final ClientAddress address = ClientAddress.trusting(List.of("10.0.0.0/8", "::1/128"), 64);

    @Test
    void forwardedForFromAnUntrustedPeerIsIgnored() {
        assertThat(address.resolve("203.0.113.7", List.of("198.51.100.1"))).isEqualTo("203.0.113.7");
    }

    @Test
    void aTrustedPeerIsBelievedAndTrustedHopsAreSkippedFromTheRight() {
        assertThat(address.resolve("10.1.2.3", List.of("198.51.100.1"))).isEqualTo("198.51.100.1");
        assertThat(address.resolve("10.1.2.3", List.of("1.1.1.1, 198.51.100.1, 10.9.9.9"))).isEqualTo("198.51.100.1");
        assertThat(address.resolve("0:0:0:0:0:0:0:1", List.of("2001:db8::5"))).isEqualTo("2001:db8:0:0:0:0:0:0/64");
    }

    @Test
    void everyLineOfForwardedForIsOneListReadFromTheRight() {
        // the client wrote the first line; the trusted proxy appended the second: the client's line is not believed
        assertThat(address.resolve("10.1.2.3", List.of("6.6.6.6", "198.51.100.1, 10.9.9.9"))).isEqualTo("198.51.100.1");
        assertThat(address.resolve("10.1.2.3", List.of("6.6.6.6", "10.9.9.9"))).isEqualTo("6.6.6.6");
        assertThat(address.resolve("10.1.2.3", List.of())).isEqualTo("10.1.2.3");
    }

    @Test
    void anIpv6ClientCountsByItsPrefix() {
        assertThat(address.resolve("2001:db8:1:2:aaaa:bbbb:cccc:dddd", List.of()))
                .isEqualTo(address.resolve("2001:db8:1:2::1", List.of()))
                .isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(address.resolve("2001:db8:1:3::1", List.of())).isEqualTo("2001:db8:1:3:0:0:0:0/64");
        assertThat(address.resolve("::ffff:192.0.2.7", List.of())).as("IPv4-mapped is IPv4").isEqualTo("192.0.2.7");
        assertThat(ClientAddress.trusting(List.of(), 48).resolve("2001:db8:1:2::1", List.of()))
                .isEqualTo("2001:db8:1:0:0:0:0:0/48");
        assertThat(ClientAddress.trusting(List.of(), 128).resolve("2001:db8::1", List.of()))
                .isEqualTo("2001:db8:0:0:0:0:0:1/128");
        assertThatThrownBy(() -> ClientAddress.trusting(List.of(), 0)).isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.ipv6-prefix=0");
    }

    @Test
    void garbageInTheChainStopsAtTheLastVouchedAddress() {
        assertThat(address.resolve("10.1.2.3", List.of("evil.example, 10.2.2.2"))).isEqualTo("10.2.2.2");
        assertThat(address.resolve("10.1.2.3", List.of("not-an-ip"))).isEqualTo("10.1.2.3");
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
        assertThatThrownBy(() -> ClientAddress.trusting(List.of("10.0.0.0/8", "proxy.local"), 64))
                .isInstanceOf(ConfigError.class)
                .hasMessageStartingWith("tollgate.gateway.trusted-proxies=proxy.local");
    }
}
