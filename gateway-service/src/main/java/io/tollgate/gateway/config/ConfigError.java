package io.tollgate.gateway.config;

/** A configuration value that is well typed but unusable; the message starts with the key. */
public final class ConfigError extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private ConfigError(String message) {
        super(message);
    }

    /** The error for {@code key} holding {@code value}, e.g. "tollgate.gateway.upstream=ftp://x: must be http". */
    public static ConfigError of(String key, Object value, String reason) {
        return new ConfigError(key + "=" + value + ": " + reason);
    }
}
