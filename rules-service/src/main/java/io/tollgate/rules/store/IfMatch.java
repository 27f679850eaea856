package io.tollgate.rules.store;

/**
 * The precondition of an {@code If-Match} header: {@code *} (the target must exist) or one version.
 *
 * @param any
 * {@code If-Match: *}
 * @param version
 * the version that must be current when {@code any} is false
 */
public record IfMatch(boolean any, long version) {

    /** Whether the precondition holds for a target at {@code current} ({@code null}: absent). */
    public boolean holds(Long current) {
        return current != null && (any || current == version);
    }
}
