package io.tollgate.gateway.key;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;

/**
 * Finds the client's address: the peer's, unless the peer is a trusted proxy, in which case
 * {@code X-Forwarded-For} (all of its lines, as one list) is read from the right, skipping trusted proxies, and the
 * first address that is not one is the client (the left part of the header is whatever the client chose to send).
 * An IPv6 client counts by its prefix ({@code tollgate.gateway.ipv6-prefix}, a /64 by default): one subscriber
 * holds a whole /64, and would otherwise have 2^64 buckets.
 */
@Singleton
public final class ClientAddress {

    static final String PREFIX_KEY = "tollgate.gateway.ipv6-prefix";

    private final List<Cidr> trusted;
    private final int ipv6PrefixBits;

    @Inject
    ClientAddress(GatewayConfig config) {
        this(parse(config.gateway().trustedProxies().orElse(List.of())), config.gateway().ipv6Prefix());
    }

    private ClientAddress(List<Cidr> trusted, int ipv6PrefixBits) {
        if (ipv6PrefixBits < 1 || ipv6PrefixBits > 128) {
            throw ConfigError.of(PREFIX_KEY, ipv6PrefixBits, "must be 1 to 128 (64: a subscriber's whole /64)");
        }
        this.trusted = trusted;
        this.ipv6PrefixBits = ipv6PrefixBits;
    }

    /** @throws ConfigError naming {@code tollgate.gateway.trusted-proxies} for a bad entry */
    static ClientAddress trusting(List<String> cidrs, int ipv6PrefixBits) {
        return new ClientAddress(parse(cidrs), ipv6PrefixBits);
    }

    private static List<Cidr> parse(List<String> cidrs) {
        List<Cidr> parsed = new ArrayList<>();
        for (String text : cidrs) {
            parsed.add(Cidr.parse(text)
                    .orElseThrow(() -> ConfigError.of("tollgate.gateway.trusted-proxies", text,
                            "not an IP address or CIDR block such as 10.0.0.0/8")));
        }
        return List.copyOf(parsed);
    }

    /** Whether any proxy is trusted: without one, {@code X-Forwarded-For} is never read. */
    boolean trustsAny() {
        return !trusted.isEmpty();
    }

    /** Whether {@code peer} (an address literal) is a trusted proxy. */
    public boolean isTrusted(String peer) {
        return trustsAny() && Cidr.literal(peer).map(this::isTrusted).orElse(false);
    }

    /**
     * The client key of a request from {@code peer} carrying the {@code X-Forwarded-For} lines {@code forwardedFor}
     * (none: empty): the client's address, an IPv6 one as its prefix ({@code 2001:db8:1:2::/64}).
     */
    String resolve(String peer, List<String> forwardedFor) {
        if (forwardedFor.isEmpty() || !isTrusted(peer)) {
            return key(peer);
        }
        String client = peer;
        for (int line = forwardedFor.size() - 1; line >= 0; line--) {
            String[] hops = forwardedFor.get(line).split(",");
            for (int i = hops.length - 1; i >= 0; i--) {
                Optional<InetAddress> address = Cidr.literal(hops[i].strip());
                if (address.isEmpty()) {
                    // garbage in the chain: stop at the last address a trusted hop vouched for
                    return key(client);
                }
                client = address.get().getHostAddress();
                if (!isTrusted(address.get())) {
                    return key(client);
                }
            }
        }
        return key(client);
    }

    /** An IPv4 address as it is; an IPv6 one as its prefix. */
    public String key(String address) {
        if (address.indexOf(':') < 0) {
            return address;
        }
        Optional<InetAddress> parsed = Cidr.literal(address);
        if (parsed.isEmpty() || !(parsed.get() instanceof Inet6Address)) {
            return parsed.map(InetAddress::getHostAddress).orElse(address); // an IPv4-mapped address is IPv4
        }
        byte[] bytes = parsed.get().getAddress();
        for (int bit = ipv6PrefixBits; bit < 128; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >> (bit % 8));
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress() + "/" + ipv6PrefixBits;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are an IPv6 address", e);
        }
    }

    private boolean isTrusted(InetAddress address) {
        for (Cidr cidr : trusted) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
