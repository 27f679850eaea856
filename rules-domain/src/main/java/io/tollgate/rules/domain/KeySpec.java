package io.tollgate.rules.domain;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Which client key a rule counts by. Wire form: {@code api_key}, {@code tenant}, {@code ip}, {@code global} or
 * {@code header:<Name>}.
 *
 * @param kind
 * where the key comes from
 * @param header
 * the header name for {@link Kind#HEADER}; {@code null} for every other kind
 */
public record KeySpec(Kind kind, String header) {

    /** Where a client key comes from. */
    public enum Kind {
        /** The API key header ({@code X-API-Key} unless the gateway names another). */
        API_KEY,
        /**
         * The tenant of the API key's client in the client directory: all of a tenant's clients count together; a
         * client without a tenant is a tenant of its own.
         */
        TENANT,
        /** The client address ({@code X-Forwarded-For} only from trusted proxies). */
        IP,
        /** One bucket shared by every client. */
        GLOBAL,
        /** A request header named by the rule. */
        HEADER
    }

    public static final KeySpec API_KEY = new KeySpec(Kind.API_KEY, null);
    public static final KeySpec TENANT = new KeySpec(Kind.TENANT, null);
    public static final KeySpec IP = new KeySpec(Kind.IP, null);
    public static final KeySpec GLOBAL = new KeySpec(Kind.GLOBAL, null);

    private static final String HEADER_PREFIX = "header:";
    /** An RFC 9110 field name: a token. */
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    public KeySpec {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.HEADER) {
            if (header == null || !HEADER_NAME.matcher(header).matches()) {
                throw new IllegalArgumentException("not a header name: " + header);
            }
        } else if (header != null) {
            throw new IllegalArgumentException("only a header key names a header");
        }
    }

    /** A key read from the request header {@code name}. */
    public static KeySpec header(String name) {
        return new KeySpec(Kind.HEADER, name);
    }

    /** The key spec for a wire form, or empty when the text is not one. */
    public static Optional<KeySpec> parse(String wire) {
        if (wire == null) {
            return Optional.empty();
        }
        if (wire.startsWith(HEADER_PREFIX)) {
            String name = wire.substring(HEADER_PREFIX.length());
            return HEADER_NAME.matcher(name).matches() ? Optional.of(header(name)) : Optional.empty();
        }
        return switch (wire) {
            case "api_key" -> Optional.of(API_KEY);
            case "tenant" -> Optional.of(TENANT);
            case "ip" -> Optional.of(IP);
            case "global" -> Optional.of(GLOBAL);
            default -> Optional.empty();
        };
    }

    /** The wire form, e.g. {@code api_key} or {@code header:X-Tenant}. */
    @JsonValue
    public String wire() {
        return kind == Kind.HEADER ? HEADER_PREFIX + header : kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return wire();
    }
}
