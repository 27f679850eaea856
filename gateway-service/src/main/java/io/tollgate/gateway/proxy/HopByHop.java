package io.tollgate.gateway.proxy;

import io.vertx.core.MultiMap;

/**
 * RFC 9110 §7.6.1: headers that belong to one connection and are never forwarded; and {@code Expect},
 * which the gateway answers itself ({@link ReverseProxy#awaitsContinue}).
 * <p>
 * Every proxied request and answer passes here, so names are compared ignoring case in place, without a
 * lower-cased copy of each (header names are case-insensitive, RFC 9110 §5.1).
 */
final class HopByHop {

    private static final String[] ALWAYS = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect"};

    private HopByHop() {
    }

    /** Copies {@code from} into {@code to}, leaving out hop-by-hop headers and those {@code Connection} names. */
    static void copy(MultiMap from, MultiMap to) {
        String connection = from.get("Connection");
        for (var header : from) {
            String name = header.getKey();
            if (!isAlways(name) && (connection == null || !listed(connection, name))) {
                to.add(name, header.getValue());
            }
        }
    }

    /**
     * Whether the request's {@code TE} says its client takes trailers ({@code TE: trailers}, as every gRPC client
     * sends): the gateway then says the same to the upstream for itself, since it relays the answer's trailers. A gRPC
     * server may refuse a call whose {@code TE} is missing, as a sign that a proxy on the way drops trailers.
     */
    static boolean acceptsTrailers(MultiMap headers) {
        for (String te : headers.getAll("TE")) {
            // TE sent twice is one list (RFC 9110 §5.3): either line may name trailers
            if (listed(te, "trailers")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAlways(String name) {
        for (String always : ALWAYS) {
            if (always.length() == name.length() && always.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the comma-separated {@code list} (a {@code Connection} value) names {@code name}. */
    static boolean listed(String list, String name) {
        int start = 0;
        while (start <= list.length()) {
            int comma = list.indexOf(',', start);
            int end = comma < 0 ? list.length() : comma;
            int from = start;
            int to = end;
            while (from < to && Character.isWhitespace(list.charAt(from))) {
                from++;
            }
            while (to > from && Character.isWhitespace(list.charAt(to - 1))) {
                to--;
            }
            if (to - from == name.length() && list.regionMatches(true, from, name, 0, name.length())) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }
}
