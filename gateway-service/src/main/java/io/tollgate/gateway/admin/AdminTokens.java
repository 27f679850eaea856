package io.tollgate.gateway.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

/**
 * Who may call the operations: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}) and the named {@code tollgate.admin.tokens}, as the rules service checks its writes. Tokens are
 * compared as SHA-256 digests with {@link MessageDigest#isEqual}, against every configured token, so timing tells
 * nothing; tokens are never logged.
 */
@ApplicationScoped
class AdminTokens {

    private static final Logger LOG = Logger.getLogger(AdminTokens.class);
    private static final String BEARER = "Bearer ";
    static final String ADMIN = "admin";

    private final Map<String, byte[]> digestByActor = new LinkedHashMap<>();

    AdminTokens(AdminConfig config) {
        config.token().filter(t -> !t.isBlank()).ifPresent(t -> digestByActor.put(ADMIN, digest(t)));
        config.tokens().forEach((name, token) -> digestByActor.put(name, digest(token)));
        if (digestByActor.isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every operation will be refused");
        } else {
            LOG.infof("operations open to %s", digestByActor.keySet());
        }
    }

    /** Whether {@code authorization} carries a bearer token at all. */
    static boolean bearer(String authorization) {
        return authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length());
    }

    /** The actor whose token a bearer {@code authorization} header carries, or null when none is configured so. */
    String actorFor(String authorization) {
        byte[] presented = digest(authorization.substring(BEARER.length()).trim());
        String actor = null;
        for (Map.Entry<String, byte[]> e : digestByActor.entrySet()) {
            // no early exit: every token is compared, whichever matches
            if (MessageDigest.isEqual(presented, e.getValue()) && actor == null) {
                actor = e.getKey();
            }
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
