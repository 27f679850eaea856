package io.tollgate.rules.live;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.tollgate.rules.config.RulesConfig;

/**
 * The bearer tokens this instance is configured with, by their SHA-256: the registry keeps only the digest of
 * the token a gateway polled with, and any instance finds the token again here to call that gateway's
 * management interface with it. A token no instance is configured with is never used.
 */
@ApplicationScoped
class GatewayTokens {

    private static final String BEARER = "Bearer ";

    private final Map<String, String> byDigest = new HashMap<>();

    @Inject
    GatewayTokens(RulesConfig config) {
        config.admin().token().ifPresent(this::add);
        config.admin().tokens().values().forEach(named -> add(named.token()));
    }

    /** The digest of the bearer token {@code authorization} carries; null when it carries none. */
    static byte[] digestOf(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return sha256(authorization.substring(BEARER.length()).trim());
    }

    /** The {@code Authorization} value of the configured token of this digest, if there is one. */
    Optional<String> authorization(byte[] digest) {
        return digest == null ? Optional.empty() : Optional.ofNullable(byDigest.get(hex(digest)));
    }

    private void add(String token) {
        byDigest.put(hex(sha256(token.trim())), BEARER + token.trim());
    }

    private static String hex(byte[] bytes) {
        return java.util.HexFormat.of().formatHex(bytes);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
