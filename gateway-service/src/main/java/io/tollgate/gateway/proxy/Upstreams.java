package io.tollgate.gateway.proxy;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;

/**
 * The route table: the default upstream plus prefix routes, the longest matching prefix first. An upstream URL's
 * scheme says how the gateway speaks to it: {@code http} and {@code https} HTTP/1.1, {@code h2c} HTTP/2 in clear
 * text by prior knowledge, {@code h2} HTTP/2 over TLS (ALPN), as Traefik's {@code h2c://} server URLs.
 */
final class Upstreams {

    private final Upstream fallback;
    private final List<Prefixed> routes;

    private record Prefixed(String prefix, Upstream upstream) {

        boolean claims(String path) {
            return path.startsWith(prefix)
                    && (path.length() == prefix.length() || prefix.endsWith("/") || path.charAt(prefix.length()) == '/');
        }
    }

    Upstreams(GatewayConfig.Gateway config) {
        this.fallback = Upstream.of("tollgate.gateway.upstream", config.upstream());
        List<Prefixed> list = new ArrayList<>();
        for (Map.Entry<String, GatewayConfig.Route> e : config.routes().entrySet()) {
            String key = "tollgate.gateway.routes.\"" + e.getKey() + "\"";
            String prefix = e.getValue().prefix();
            if (!prefix.startsWith("/")) {
                throw ConfigError.of(key + ".prefix", prefix, "must start with '/'");
            }
            list.add(new Prefixed(prefix, Upstream.of(key + ".url", e.getValue().url())));
        }
        list.sort(Comparator.comparingInt((Prefixed p) -> p.prefix().length()).reversed());
        this.routes = List.copyOf(list);
    }

    /** The upstream for a request path: the longest prefix route that claims it, else the default. */
    Upstream forPath(String path) {
        for (Prefixed route : routes) {
            if (route.claims(path)) {
                return route.upstream();
            }
        }
        return fallback;
    }

    /** How the gateway speaks to an upstream, named by its URL's scheme. */
    enum Protocol {

        /** {@code http://} and {@code https://}. */
        HTTP_1_1,
        /** {@code h2c://}: HTTP/2 without TLS, by prior knowledge (no upgrade round trip). */
        H2C,
        /** {@code h2://}: HTTP/2 over TLS, chosen by ALPN. */
        H2;

        static Protocol of(String scheme) {
            return switch (scheme == null ? "" : scheme) {
                case "http", "https" -> HTTP_1_1;
                case "h2c" -> H2C;
                case "h2" -> H2;
                default -> null;
            };
        }
    }

    /** One backend: where to connect, how to speak to it, and the path to put before the request's own. */
    record Upstream(String host, int port, boolean ssl, Protocol protocol, String basePath, String authority) {

        static Upstream of(String key, URI url) {
            String scheme = url.getScheme();
            Protocol protocol = Protocol.of(scheme);
            if (protocol == null) {
                throw ConfigError.of(key, url, "must be an http://, https://, h2c:// or h2:// URL");
            }
            if (url.getHost() == null) {
                throw ConfigError.of(key, url, "must name a host");
            }
            boolean ssl = "https".equals(scheme) || protocol == Protocol.H2;
            int port = url.getPort() > 0 ? url.getPort() : ssl ? 443 : 80;
            String base = url.getRawPath() == null || url.getRawPath().equals("/") ? "" : url.getRawPath();
            if (base.endsWith("/")) {
                base = base.substring(0, base.length() - 1);
            }
            String authority = url.getPort() > 0 ? url.getHost() + ":" + url.getPort() : url.getHost();
            return new Upstream(url.getHost(), port, ssl, protocol, base, authority);
        }
    }
}
