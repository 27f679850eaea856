package io.tollgate.gateway.http;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.gateway.http.Refusals.Reason;
import io.tollgate.gateway.http.Refusals.Refusal;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.proxy.HopByHop;
import io.tollgate.gateway.proxy.WebSocketRelay;
import io.tollgate.gateway.rules.RuleBook;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/**
 * What a request's head must say before any rule reads it, so that the backend reads the request as the gateway
 * does: one framing of its body (RFC 9112 §6), one {@code Host}, a {@code Connection} header that names nothing the
 * gateway reads or sets (it would take that header away behind the check), and, for a WebSocket upgrade, an RFC 6455
 * handshake. HTTP/2 carries no {@code Connection} nor {@code Transfer-Encoding}: Netty refuses such a stream (RFC
 * 9113 §8.2.2), so those checks find nothing there; its field names and values must be well formed
 * ({@link FieldSyntax}).
 */
@ApplicationScoped
class HeaderChecks {

    private static final String CHUNKED = "chunked";
    /** The gateway's own headers ({@code Tollgate-Warmup} among them) are all named so. */
    private static final String OWN_PREFIX = "tollgate-";

    private final RuleBook rules;
    /** In lower case: what the proxy relies on, the rate-limit fields the gateway writes, the API key header. */
    private final Set<String> reliedOn;

    HeaderChecks(RuleBook rules, KeyResolver keys) {
        this.rules = rules;
        Set<String> names = new HashSet<>();
        for (String name : HopByHop.RELIED_ON) {
            names.add(lower(name));
        }
        for (String name : List.of(RateLimitHeaders.POLICY, RateLimitHeaders.RATE_LIMIT, RateLimitHeaders.LIMIT,
                RateLimitHeaders.REMAINING, RateLimitHeaders.RESET)) {
            names.add(lower(name));
        }
        names.add(lower(keys.apiKeyHeader()));
        this.reliedOn = Set.copyOf(names);
    }

    /** Why {@code request} is refused before its rules, or null when its head reads one way only. */
    Refusal refusal(HttpServerRequest request) {
        MultiMap headers = request.headers();
        if (request.version() == HttpVersion.HTTP_2) {
            String malformed = FieldSyntax.problem(headers);
            if (malformed != null) {
                return new Refusal(Reason.BAD_HEADER, malformed);
            }
        }
        if (headers.contains(HttpHeaders.TRANSFER_ENCODING)) {
            Refusal framing = framing(request);
            if (framing != null) {
                return framing;
            }
        }
        if (request.version() != HttpVersion.HTTP_2 && framingLookalike(headers)) {
            return new Refusal(Reason.BAD_FRAMING, "a header is named as Transfer-Encoding or Content-Length with _ for "
                    + "-: a backend that reads _ as - (as CGI does) would frame the body another way");
        }
        if (headers.getAll(HttpHeaders.HOST).size() > 1) {
            return new Refusal(Reason.AMBIGUOUS_HOST, "Host is sent more than once: the gateway and a backend could "
                    + "each read another (RFC 9112 §3.2)");
        }
        if (headers.contains(HttpHeaders.CONNECTION)) {
            String named = HopByHop.listedOf(headers, this::reliedOn);
            if (named != null) {
                return new Refusal(Reason.BAD_CONNECTION, "Connection names " + shown(named) + ", which the gateway "
                        + "reads or sets: it would be taken away from the request the gateway checked");
            }
        }
        if (WebSocketRelay.isUpgrade(request)) {
            String bad = WebSocketRelay.badHandshake(request);
            if (bad != null) {
                return new Refusal(Reason.BAD_HANDSHAKE, "not a WebSocket handshake (RFC 6455 §4.2.1): " + bad);
            }
        }
        return null;
    }

    /**
     * Why Vert.x Web refused {@code request} before any route could read it, as the gateway tells it, or null when that
     * refusal was for something else. Vert.x Web answers these itself, a 400 whose exception Quarkus logs as an ERROR
     * line with an error id, or a bare 404: a request without an authority ({@code Host} in HTTP/1.1, {@code :authority}
     * or {@code Host} in HTTP/2) or whose {@code Host} is no authority, and a request target that is not a path. Each
     * is the client's fault, told as a problem like the gateway's other refusals, and counted.
     */
    Refusal beforeRoutes(HttpServerRequest request) {
        if (request.version() != HttpVersion.HTTP_1_0 && request.authority() == null) {
            if (request.headers().contains(HttpHeaders.HOST)) {
                return new Refusal(Reason.BAD_HOST, "Host is not an authority, a host and an optional port (RFC 9112 "
                        + "§3.2, RFC 3986 §3.2)");
            }
            return new Refusal(Reason.BAD_HOST, request.version() == HttpVersion.HTTP_2
                    ? "an HTTP/2 request names its authority in :authority or Host (RFC 9113 §8.3.1)"
                    : "an HTTP/1.1 request carries Host (RFC 9112 §3.2)");
        }
        String path = request.path();
        if ((path == null || !path.startsWith("/")) && !asteriskForm(request)) {
            return new Refusal(Reason.BAD_PATH, "the request target is not a path starting with / (origin form, RFC "
                    + "9112 §3.2.1, RFC 9113 §8.3.1): the gateway forwards no other");
        }
        return null;
    }

    /** {@code OPTIONS *} (RFC 9112 §3.2.4), a question about the server, which Vert.x Web answers 404. */
    private static boolean asteriskForm(HttpServerRequest request) {
        return request.method() == HttpMethod.OPTIONS && "*".equals(request.path());
    }

    /**
     * Whether a field name reads {@code Transfer-Encoding} or {@code Content-Length} once its {@code _} are read as
     * {@code -} (smuggler's {@code underjoin1}); the names the gateway forwards as any other header.
     */
    private static boolean framingLookalike(MultiMap headers) {
        for (Map.Entry<String, String> field : headers) {
            String name = field.getKey();
            if ((name.length() == 17 || name.length() == 14) && name.indexOf('_') >= 0) {
                String dashed = name.replace('_', '-');
                if (dashed.equalsIgnoreCase("transfer-encoding") || dashed.equalsIgnoreCase("content-length")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A body framed by {@code Transfer-Encoding} is read by its codings, the last of which must be {@code chunked},
     * applied once; the gateway implements no other coding (501, RFC 9112 §6.1). With a {@code Content-Length} too,
     * or in HTTP/1.0, one backend reads one length and another the other: 400 (RFC 9112 §6.1, §6.3).
     */
    private static Refusal framing(HttpServerRequest request) {
        if (request.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            return new Refusal(Reason.BAD_FRAMING, "Transfer-Encoding and Content-Length both frame the body");
        }
        if (request.version() == HttpVersion.HTTP_1_0) {
            return new Refusal(Reason.BAD_FRAMING, "Transfer-Encoding in an HTTP/1.0 request");
        }
        List<String> codings = codings(request.headers().getAll(HttpHeaders.TRANSFER_ENCODING));
        if (codings.isEmpty() || !codings.get(codings.size() - 1).equalsIgnoreCase(CHUNKED)) {
            return new Refusal(Reason.BAD_FRAMING, "the last transfer coding is not chunked: the body's end cannot "
                    + "be read");
        }
        for (String coding : codings.subList(0, codings.size() - 1)) {
            if (coding.equalsIgnoreCase(CHUNKED)) {
                return new Refusal(Reason.BAD_FRAMING, "chunked is applied more than once");
            }
        }
        if (codings.size() > 1) {
            return new Refusal(Reason.UNKNOWN_CODING, "the gateway reads no transfer coding but chunked");
        }
        return null;
    }

    /** The codings of every {@code Transfer-Encoding} line, as one list (RFC 9110 §5.3), their parameters left out. */
    private static List<String> codings(List<String> lines) {
        List<String> codings = new ArrayList<>(2);
        for (String line : lines) {
            for (String part : line.split(",")) {
                int parameters = part.indexOf(';');
                String coding = (parameters < 0 ? part : part.substring(0, parameters)).trim();
                if (!coding.isEmpty()) {
                    codings.add(coding);
                }
            }
        }
        return codings;
    }

    /**
     * Whether a {@code Connection} header may not name {@code name}: what the gateway relies on, the gateway's own
     * headers, and any header a {@code header:} key of the rules in force counts by, whether its rule matches this
     * request or not.
     */
    private boolean reliedOn(String name) {
        String lower = lower(name);
        return reliedOn.contains(lower) || lower.startsWith(OWN_PREFIX) || rules.keyHeaders().contains(lower);
    }

    /** A name as the answer shows it: the gateway's own headers by their prefix, not as the client spelled them. */
    private static String shown(String name) {
        return lower(name).startsWith(OWN_PREFIX) ? "a Tollgate-* header" : name;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
