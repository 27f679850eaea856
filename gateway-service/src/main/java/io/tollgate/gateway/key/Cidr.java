package io.tollgate.gateway.key;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/** An IPv4 or IPv6 address block such as {@code 10.0.0.0/8} or {@code ::1/128}; a bare address is a /32 or /128. */
record Cidr(byte[] network, int prefixBits) {

    /** The block in {@code text}, or empty when it is not one (host names are refused: no DNS at start). */
    static Optional<Cidr> parse(String text) {
        String s = text.strip();
        int slash = s.indexOf('/');
        String address = slash < 0 ? s : s.substring(0, slash);
        Optional<InetAddress> parsed = literal(address);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = parsed.get().getAddress();
        int max = bytes.length * 8;
        int bits;
        try {
            bits = slash < 0 ? max : Integer.parseInt(s.substring(slash + 1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return bits < 0 || bits > max ? Optional.empty() : Optional.of(new Cidr(bytes, bits));
    }

    /** Whether {@code address} lies in this block (an IPv4 address never lies in an IPv6 block). */
    boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length != network.length) {
            return false;
        }
        int whole = prefixBits / 8;
        for (int i = 0; i < whole; i++) {
            if (bytes[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixBits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (bytes[whole] & mask) == (network[whole] & mask);
    }

    /** The address of an IP literal, without any DNS look-up. */
    static Optional<InetAddress> literal(String text) {
        String s = text.strip();
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        boolean looksLikeIp = !s.isEmpty()
                && (s.indexOf(':') >= 0 || s.chars().allMatch(c -> c == '.' || Character.isDigit(c)));
        if (!looksLikeIp) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(s));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }
}
