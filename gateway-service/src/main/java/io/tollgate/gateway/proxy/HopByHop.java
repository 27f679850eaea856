package io.tollgate.gateway.proxy;

import java.util.List;
import java.util.function.Predicate;

import io.vertx.core.MultiMap;

/**
 * RFC 9110 §7.6.1: headers that belong to one connection and are never forwarded; and {@code Expect},
 * which the gateway answers itself ({@link ReverseProxy#awaitsContinue}).
 * <p>
 * Every proxied request and answer passes here, so names are compared ignoring case in place, without a
 * lower-cased copy of each (header names are case-insensitive, RFC 9110 §5.1).
 */
public final class HopByHop {

    private static final String CONNECTION = "Connection";
    private static final String CONTENT_LENGTH = "Content-Length";
    private static final String[] ALWAYS = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect"};
    /**
     * What the proxy relies on in a request, which a {@code Connection} header may not name: the body's framing, the
     * authority it replaces, the forwarding headers it sets. ({@code TE} may be named: the proxy drops it always and
     * sets its own, and RFC 9110 §10.1.4 asks a client that sends it to name it.)
     */
    public static final List<String> RELIED_ON = List.of(CONTENT_LENGTH, "Transfer-Encoding", "Host",
            ForwardedHeaders.FOR, ForwardedHeaders.PROTO, ForwardedHeaders.HOST);

    private HopByHop() {
    }

    /**
     * Copies {@code from} into {@code to}, leaving out hop-by-hop headers and those {@code Connection} names (on every
     * line of it). {@code Content-Length} is kept whatever {@code Connection} says: the framing of a body is not the
     * sender's to drop, and a body without it, unchunked, could not be written at all.
     */
    static void copy(MultiMap from, MultiMap to) {
        List<String> connection = from.contains(CONNECTION) ? from.getAll(CONNECTION) : List.of();
        for (var header : from) {
            String name = header.getKey();
            if (!isAlways(name) && (connection.isEmpty() || isContentLength(name) || !listed(connection, name))) {
                to.add(name, header.getValue());
            }
        }
    }

    /** The first name a {@code Connection} line of {@code headers} lists that {@code relied} accepts, or null. */
    public static String listedOf(MultiMap headers, Predicate<String> relied) {
        for (String line : headers.getAll(CONNECTION)) {
            for (String name : line.split(",")) {
                String trimmed = name.trim();
                if (!trimmed.isEmpty() && relied.test(trimmed)) {
                    return trimmed;
                }
            }
        }
        return null;
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

    private static boolean listed(List<String> lines, String name) {
        for (String line : lines) {
            if (listed(line, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isContentLength(String name) {
        return CONTENT_LENGTH.length() == name.length() && CONTENT_LENGTH.equalsIgnoreCase(name);
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
