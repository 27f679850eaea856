package io.tollgate.gateway.key;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.tollgate.gateway.config.ConfigError;

/**
 * Finds the client's address: the peer's, unless the peer is a trusted proxy, in which case
 * {@code X-Forwarded-For} is read from the right, skipping trusted proxies, and the first address that is
 * not one is the client (the left part of the header is whatever the client chose to send).
 */
final class ClientAddress {

    private final List<Cidr> trusted;

    private ClientAddress(List<Cidr> trusted) {
        this.trusted = trusted;
    }

    /** @throws ConfigError naming {@code tollgate.gateway.trusted-proxies} for a bad entry */
    static ClientAddress trusting(List<String> cidrs) {
        List<Cidr> parsed = new ArrayList<>();
        for (String text : cidrs) {
            parsed.add(Cidr.parse(text)
                    .orElseThrow(() -> ConfigError.of("tollgate.gateway.trusted-proxies", text,
                            "not an IP address or CIDR block such as 10.0.0.0/8")));
        }
        return new ClientAddress(List.copyOf(parsed));
    }

    /**
     * The client address of a request from {@code peer} carrying {@code forwardedFor} (may be null).
     */
    String resolve(String peer, String forwardedFor) {
        if (forwardedFor == null || forwardedFor.isBlank() || !isTrusted(peer)) {
            return peer;
        }
        String[] hops = forwardedFor.split(",");
        String client = peer;
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = hops[i].strip();
            Optional<InetAddress> address = Cidr.literal(hop);
            if (address.isEmpty()) {
                // garbage in the chain: stop at the last address a trusted hop vouched for
                return client;
            }
            client = address.get().getHostAddress();
            if (!isTrusted(address.get())) {
                return client;
            }
        }
        return client;
    }

    private boolean isTrusted(String peer) {
        return Cidr.literal(peer).map(this::isTrusted).orElse(false);
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
