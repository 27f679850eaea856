package io.tollgate.gateway.key;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.runtime.Startup;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.rules.domain.KeySpec;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/** Reads the client key a rule counts by from a request: api key, client address, a header, or the global key. */
@Startup // built at start, so a bad value fails the start naming its key
@ApplicationScoped
public class KeyResolver {

    /** The one client key of {@code global} rules. */
    static final String GLOBAL = "global";
    static final String FORWARDED_FOR = "X-Forwarded-For";

    private final String apiKeyHeader;
    private final ClientAddress clientAddress;

    KeyResolver(GatewayConfig config, ClientAddress clientAddress) {
        this.apiKeyHeader = config.gateway().apiKeyHeader();
        this.clientAddress = clientAddress;
    }

    /** The client key for {@code spec}, or empty when the request lacks it (absent or empty). */
    public Optional<String> resolve(KeySpec spec, HttpServerRequest request) {
        return switch (spec.kind()) {
            case API_KEY, TENANT -> header(request.getHeader(apiKeyHeader));
            case HEADER -> header(request.getHeader(spec.header()));
            case GLOBAL -> Optional.of(GLOBAL);
            case IP -> Optional.ofNullable(peer(request)).map(peer -> clientAddress.resolve(peer,
                    clientAddress.trustsAny() ? request.headers().getAll(FORWARDED_FOR) : List.of()));
        };
    }

    /**
     * The header {@code spec} counts by when {@code request} carries it more than once, else null: a client that
     * sends two API keys is counted by one and may be served by the other, so it is refused.
     */
    public String ambiguous(KeySpec spec, HttpServerRequest request) {
        String name = switch (spec.kind()) {
            case API_KEY, TENANT -> apiKeyHeader;
            case HEADER -> spec.header();
            case GLOBAL, IP -> null;
        };
        return name != null && request.headers().getAll(name).size() > 1 ? name : null;
    }

    /**
     * The client key for {@code spec} of a request described rather than received (the {@code explain}
     * operation): its headers by name ({@code headers} answers null for an absent one) and its client address as
     * already resolved (null when not given).
     */
    public Optional<String> resolve(KeySpec spec, UnaryOperator<String> headers, String clientAddress) {
        return switch (spec.kind()) {
            case API_KEY, TENANT -> header(headers.apply(apiKeyHeader));
            case HEADER -> header(headers.apply(spec.header()));
            case GLOBAL -> Optional.of(GLOBAL);
            case IP -> clientAddress == null || clientAddress.isEmpty()
                    ? Optional.empty()
                    : Optional.of(this.clientAddress.key(clientAddress));
        };
    }

    /** The header that carries the API key. */
    public String apiKeyHeader() {
        return apiKeyHeader;
    }

    /** What a request lacking the key of {@code spec} is missing, for the 401 answer (a header name). */
    public String missing(KeySpec spec) {
        return switch (spec.kind()) {
            case API_KEY, TENANT -> apiKeyHeader;
            case HEADER -> spec.header();
            case IP -> "client address";
            case GLOBAL -> "nothing";
        };
    }

    private static Optional<String> header(String value) {
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    private static String peer(HttpServerRequest request) {
        SocketAddress remote = request.remoteAddress();
        return remote == null ? null : remote.hostAddress();
    }
}
