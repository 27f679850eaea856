package io.tollgate.rules.domain;

import static io.tollgate.rules.domain.Constraints.ID_MISMATCH;
import static io.tollgate.rules.domain.Constraints.ID_REGEX;
import static io.tollgate.rules.domain.Constraints.MAX_LABEL;
import static io.tollgate.rules.domain.Constraints.REQUIRED;
import static io.tollgate.rules.domain.Constraints.TOO_LONG;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One client of the directory: an API key's tenant, plan, label and per-rule overrides
 * (docs/clients-plans-tenants.md). The key itself is never part of it: the directory keeps its SHA-256 ({@link ClientDigest}).
 *
 * @param tenant
 * the tenant it belongs to; {@code null}: a tenant of its own
 * @param plan
 * its plan; {@code null}: its tenant's
 * @param label
 * free text shown instead of the key (e.g. "Acme production"); may be {@code null}
 * @param overrides
 * its own limits per rule id, ahead of any plan; empty when none
 */
@JsonPropertyOrder({"tenant", "plan", "label", "overrides"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClientEntry(
        @Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String tenant,
        @Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String plan,
        @Size(max = MAX_LABEL, message = TOO_LONG) String label,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<@Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String, @NotNull(message = REQUIRED) @Valid Limits> overrides) {

    public ClientEntry {
        overrides = frozen(overrides);
    }

    /** An insertion-ordered, unmodifiable copy; empty for {@code null}. */
    static Map<String, Limits> frozen(Map<String, Limits> map) {
        return map == null || map.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
