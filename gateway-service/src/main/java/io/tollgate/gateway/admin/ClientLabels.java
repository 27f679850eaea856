package io.tollgate.gateway.admin;

/**
 * The directory's name for a client, for the operators' answers: clients appear as the SHA-256 hex digest of
 * their key, which is also how the client directory keys them. Without a directory no client has a label.
 */
public interface ClientLabels {

    /** The label of the client whose key has this digest, or null when it has none. */
    String label(String digest);
}
