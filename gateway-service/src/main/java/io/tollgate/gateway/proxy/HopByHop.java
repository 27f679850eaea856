package io.tollgate.gateway.proxy;

import java.util.Locale;
import java.util.Set;

import io.vertx.core.MultiMap;

/**
 * RFC 9110 §7.6.1: headers that belong to one connection and are never forwarded; and {@code Expect},
 * which the gateway answers itself ({@link ReverseProxy#awaitsContinue}).
 */
final class HopByHop {

    private static final Set<String> ALWAYS = Set.of("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect");

    private HopByHop() {
    }

    /** Copies {@code from} into {@code to}, leaving out hop-by-hop headers and those {@code Connection} names. */
    static void copy(MultiMap from, MultiMap to) {
        String connection = from.get("Connection");
        Set<String> named = connection == null ? Set.of() : Set.of(lowerTokens(connection));
        for (var header : from) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if (!ALWAYS.contains(name) && !named.contains(name)) {
                to.add(header.getKey(), header.getValue());
            }
        }
    }

    private static String[] lowerTokens(String list) {
        return java.util.Arrays.stream(list.split(","))
                .map(s -> s.strip().toLowerCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .distinct()
                .toArray(String[]::new);
    }
}
