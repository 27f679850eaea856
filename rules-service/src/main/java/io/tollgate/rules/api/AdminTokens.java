package io.tollgate.rules.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.tollgate.rules.config.RulesConfig;

/**
 * Who may write: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}) and the named {@code tollgate.admin.tokens}. Tokens are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, against every configured token, so timing tells nothing; tokens are never
 * logged.
 */
@ApplicationScoped
class AdminTokens {

    private static final Logger LOG = Logger.getLogger(AdminTokens.class);
    private static final String BEARER = "Bearer ";
    static final String ADMIN = "admin";

    private final Map<String, byte[]> digestByActor = new LinkedHashMap<>();

    AdminTokens(RulesConfig config) {
        config.admin().token().filter(t -> !t.isBlank()).ifPresent(t -> digestByActor.put(ADMIN, digest(t)));
        config.admin().tokens().forEach((name, token) -> digestByActor.put(name, digest(token)));
        if (digestByActor.isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every write will be refused");
        } else {
            LOG.infof("write access for %s", digestByActor.keySet());
        }
    }

    /**
     * The actor an {@code Authorization} header names.
     *
     * @throws ProblemException
     * 401 without a bearer token, 403 for a token that is not configured
     */
    String actorFor(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            throw new ProblemException(
                    new Problem("unauthorized", "Authentication required", 401,
                            "writes need Authorization: Bearer <token>"),
                    Map.of("WWW-Authenticate", "Bearer realm=\"tollgate\""));
        }
        byte[] presented = digest(authorization.substring(BEARER.length()).trim());
        String actor = null;
        for (Map.Entry<String, byte[]> e : digestByActor.entrySet()) {
            // no early exit: every token is compared, whichever matches
            if (MessageDigest.isEqual(presented, e.getValue()) && actor == null) {
                actor = e.getKey();
            }
        }
        if (actor == null) {
            throw new ProblemException(new Problem("forbidden", "Token not accepted", 403,
                    "the bearer token is not one of the configured admin tokens"));
        }
        return actor;
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
