package io.tollgate.counter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The one owner of the Redis key scheme: {@code rl:<rule-id>:{<client-key>}}, and for a client of a tenant
 * {@code rl:<rule-id>:{<tenant>}:<client-key>} beside the tenant's own {@code rl:<rule-id>:{<tenant>}:@}; a
 * calendar rule's keys end in the window's label ({@code :2026-12}).
 * <p>
 * The tenant's own bucket ends in {@code :@}, a part no client key becomes: a rule keyed {@code tenant} counts a
 * caller without a tenant in {@code rl:<rule-id>:{<its key>}}, so an API key spelled as a tenant's id (known
 * to the directory or not) counts apart from that tenant and cannot spend its shared bucket.
 * <p>
 * The braces are a Redis Cluster hash tag, so all buckets of one client live on one shard and one
 * script can check them together. A client key longer than 64 UTF-8 bytes, empty, or with any byte
 * outside {@code [A-Za-z0-9._~-]} becomes {@code sha256:} and the 64 lowercase hex digits of the
 * SHA-256 of its UTF-8 bytes; the colon is outside the safe set, so no literal key equals a digest.
 */
public final class CounterKeys {

    /** Longest client key kept literally, in UTF-8 bytes. */
    static final int MAX_LITERAL_BYTES = 64;

    private CounterKeys() {
    }

    /** The bucket key of one rule for one client. */
    public static String key(String ruleId, String clientKey) {
        if (ruleId == null || ruleId.isEmpty()) {
            throw new IllegalArgumentException("ruleId must be set, was \"" + ruleId + "\"");
        }
        if (clientKey == null) {
            throw new IllegalArgumentException("clientKey must not be null");
        }
        return "rl:" + ruleId + ":{" + clientPart(clientKey) + "}";
    }

    /**
     * The bucket key of one rule for a client of {@code tenant}: it carries the tenant's hash tag, so the client's
     * buckets and the tenant's ({@link #key(String, String)} of the tenant) live on one shard and one script checks
     * them together. Each part is literal when safe, else its digest.
     */
    public static String key(String ruleId, String tenant, String clientKey) {
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null");
        }
        return key(ruleId, tenant) + ":" + clientPart(clientKey);
    }

    /**
     * The tenant's own bucket of one rule keyed {@code tenant}: it carries the tenant's hash tag, as its clients'
     * buckets do, and ends in {@code :@}, so no caller's key of its own ({@link #key(String, String)}) equals it.
     */
    public static String tenantKey(String ruleId, String tenant) {
        if (tenant == null) {
            throw new IllegalArgumentException("tenant must not be null");
        }
        return key(ruleId, tenant) + TENANT_SUFFIX;
    }

    /** What ends a tenant's own bucket key: '@' is outside the safe set, so no client part is "@". */
    static final String TENANT_SUFFIX = ":@";

    /**
     * The bucket key of one window of a calendar rule: {@code key} (one of the above) and the window's label
     * ({@code 2026-12}), so the key changes at the window's boundary and the hash tag stays the client's.
     */
    public static String windowed(String key, String window) {
        return key + ":" + window;
    }

    /** The client key as it appears inside the hash tag: literal when safe, else its digest. */
    static String clientPart(String clientKey) {
        byte[] bytes = clientKey.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_LITERAL_BYTES || !allSafe(bytes)) {
            return "sha256:" + sha256(bytes);
        }
        return clientKey;
    }

    private static boolean allSafe(byte[] bytes) {
        for (byte b : bytes) {
            boolean safe = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '.'
                    || b == '_' || b == '~' || b == '-';
            if (!safe) {
                return false;
            }
        }
        return true;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
