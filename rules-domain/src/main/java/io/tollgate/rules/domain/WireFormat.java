package io.tollgate.rules.domain;

/** The text formats a rule or rule set may be written in. */
public enum WireFormat {

    JSON, YAML;

    /**
     * The format of a body: JSON when its first non-blank character opens an object or array, YAML
     * otherwise.
     */
    public static WireFormat sniff(byte[] body) {
        for (byte b : body) {
            if (b == ' ' || b == '\t' || b == '\r' || b == '\n') {
                continue;
            }
            return b == '{' || b == '[' ? JSON : YAML;
        }
        return JSON;
    }

    /** The format a media type names: YAML for {@code application/yaml}, {@code text/yaml} and the like. */
    public static WireFormat ofMediaType(String mediaType) {
        return mediaType != null && mediaType.toLowerCase(java.util.Locale.ROOT).contains("yaml") ? YAML : JSON;
    }
}
