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
 * script can check them together. A client key is a {@link Client}: a secret (an API key, a {@code header:} value)
 * always appears as {@code sha256:} and the 64 lowercase hex digits of the SHA-256 of its UTF-8 bytes, so Redis,
 * its replicas and backups never hold one as sent; a readable key (an address, a tenant id, {@code global}) stays
 * literal unless it is longer than 64 UTF-8 bytes, empty, or has any byte outside {@code [A-Za-z0-9._~-]}, and is
 * digested then. The colon is outside the safe set, so no literal key equals a digest.
 */
public final class CounterKeys {

    /** Longest client key kept literally, in UTF-8 bytes. */
    static final int MAX_LITERAL_BYTES = 64;
    /** What starts a digested client key: the colon is outside the safe set, so no literal key starts so. */
    static final String DIGEST_PREFIX = "sha256:";
    private static final int SHA256_BYTES = 32;
    private static final HexFormat HEX = HexFormat.of();
    /** Each thread's own digest: a request's key is digested on its thread, with no lock and no lookup. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(CounterKeys::newSha256);

    private CounterKeys() {
    }

    /** A readable client key (an address, a tenant id, {@code global}): literal when safe, else its digest. */
    public static Client readable(String clientKey) {
        if (clientKey == null) {
            throw new IllegalArgumentException("clientKey must not be null");
        }
        return new Client(clientPart(clientKey));
    }

    /** A secret client key (an API key, a {@code header:} value): always its digest, never as sent. */
    public static Client secret(String secret) {
        if (secret == null) {
            throw new IllegalArgumentException("secret must not be null");
        }
        return new Client(DIGEST_PREFIX + sha256(secret.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * A secret client key whose SHA-256 the caller already holds ({@code sha256}, 32 bytes), so a request that
     * digests its API key for the client directory pays for no second digest.
     */
    public static Client digested(byte[] sha256) {
        if (sha256 == null || sha256.length != SHA256_BYTES) {
            throw new IllegalArgumentException("a SHA-256 is 32 bytes");
        }
        StringBuilder part = new StringBuilder(DIGEST_PREFIX.length() + 2 * SHA256_BYTES).append(DIGEST_PREFIX);
        return new Client(HEX.formatHex(part, sha256).toString());
    }

    /** The bucket key of one rule for one readable client key ({@link #readable}). */
    public static String key(String ruleId, String clientKey) {
        return key(ruleId, readable(clientKey));
    }

    /** The bucket key of one rule for one client. */
    public static String key(String ruleId, Client client) {
        if (ruleId == null || ruleId.isEmpty()) {
            throw new IllegalArgumentException("ruleId must be set, was \"" + ruleId + "\"");
        }
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        return "rl:" + ruleId + ":{" + client.part + "}";
    }

    /** As {@link #key(String, Client, Client)}, for a readable tenant id and client key. */
    public static String key(String ruleId, String tenant, String clientKey) {
        return key(ruleId, readable(tenant), readable(clientKey));
    }

    /**
     * The bucket key of one rule for a client of {@code tenant}: it carries the tenant's hash tag, so the client's
     * buckets and the tenant's ({@link #tenantKey}) live on one shard and one script checks them together.
     */
    public static String key(String ruleId, Client tenant, Client client) {
        if (tenant == null || client == null) {
            throw new IllegalArgumentException("tenant and client must not be null");
        }
        return key(ruleId, tenant) + ":" + client.part;
    }

    /** As {@link #tenantKey(String, Client)}, for a readable tenant id. */
    public static String tenantKey(String ruleId, String tenant) {
        return tenantKey(ruleId, readable(tenant));
    }

    /**
     * The tenant's own bucket of one rule keyed {@code tenant}: it carries the tenant's hash tag, as its clients'
     * buckets do, and ends in {@code :@}, so no caller's key of its own ({@link #key(String, Client)}) equals it.
     */
    public static String tenantKey(String ruleId, Client tenant) {
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

    /** A readable client key as it appears inside the hash tag: literal when safe, else its digest. */
    private static String clientPart(String clientKey) {
        byte[] bytes = clientKey.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_LITERAL_BYTES || !allSafe(bytes)) {
            return DIGEST_PREFIX + sha256(bytes);
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
        return HEX.formatHex(SHA256.get().digest(bytes));
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /**
     * A client key as it appears inside a bucket key's hash tag ({@link #part}): literal, or {@code sha256:} and
     * the digest's hex. Safe to log and to show: it never holds a secret as sent.
     */
    public static final class Client {

        private final String part;

        private Client(String part) {
            this.part = part;
        }

        /** What the bucket keys of this client carry inside their braces: their hash tag. */
        public String part() {
            return part;
        }

        /**
         * The 64 lowercase hex digits of the SHA-256 of the key as sent: the digest the part carries, else worked
         * out from the literal part. The client directory names an API key's client by this digest.
         */
        public String sha256() {
            return part.startsWith(DIGEST_PREFIX)
                    ? part.substring(DIGEST_PREFIX.length())
                    : CounterKeys.sha256(part.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Client c && c.part.equals(part);
        }

        @Override
        public int hashCode() {
            return part.hashCode();
        }

        @Override
        public String toString() {
            return part;
        }
    }
}
