package io.tollgate.rules.live;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Which management address a gateway reports ({@code Tollgate-Gateway-Admin}) the rules service calls: an
 * absolute http(s) base URL whose host is the address the poll came from, or one of
 * {@code tollgate.live.allowed-hosts}. Anything else would let a caller point the service, and the token it
 * sends, at a host of the caller's choosing. Host names are compared as written, never resolved.
 */
@ApplicationScoped
class ReportedAddress {

    static final int MAX_URL_LENGTH = 200;

    private final Set<String> allowedHosts;

    @Inject
    ReportedAddress(LiveConfig config) {
        this(config.allowedHosts().orElse(List.of()));
    }

    ReportedAddress(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts.stream().map(ReportedAddress::host).collect(Collectors.toUnmodifiableSet());
    }

    /** {@code reported} as a base URL without a trailing slash if the rule lets it be called; null otherwise. */
    String accepted(String reported, String source) {
        String url = baseUrl(reported);
        if (url == null) {
            return null;
        }
        String host = host(URI.create(url).getHost());
        return host.equals(source == null ? null : host(source)) || allowedHosts.contains(host) ? url : null;
    }

    /** {@code text} as an absolute http(s) base URL without a trailing slash, or null when it is not one. */
    static String baseUrl(String text) {
        if (text == null || text.isBlank() || text.length() > MAX_URL_LENGTH) {
            return null;
        }
        try {
            URI uri = new URI(text.trim());
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            if (!http || uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                return null;
            }
            String url = uri.toString();
            return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** A host as compared: lower case, an IPv6 literal without its brackets. */
    private static String host(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }
}
