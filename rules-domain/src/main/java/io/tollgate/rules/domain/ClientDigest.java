package io.tollgate.rules.domain;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * How the directory names a client: the SHA-256 of its API key's UTF-8 bytes, as 64 lowercase hex digits. The
 * raw key is digested where it arrives (the rules service's path, a gateway's request) and never kept.
 */
public final class ClientDigest {

    /** 64 lowercase hex digits. */
    public static final Pattern FORM = Pattern.compile("[0-9a-f]{64}");
    private static final HexFormat HEX = HexFormat.of();

    private ClientDigest() {
    }

    /** The digest of {@code apiKey}. */
    public static String of(String apiKey) {
        return HEX.formatHex(bytes(apiKey));
    }

    /** The 32 bytes of the digest of {@code apiKey}. */
    public static byte[] bytes(String apiKey) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(apiKey.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Whether {@code text} is a digest's form. */
    public static boolean isDigest(String text) {
        return text != null && FORM.matcher(text).matches();
    }
}
