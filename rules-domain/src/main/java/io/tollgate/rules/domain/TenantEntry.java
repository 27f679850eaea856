package io.tollgate.rules.domain;

import static io.tollgate.rules.domain.Constraints.ID_MISMATCH;
import static io.tollgate.rules.domain.Constraints.ID_REGEX;
import static io.tollgate.rules.domain.Constraints.MAX_LABEL;
import static io.tollgate.rules.domain.Constraints.REQUIRED;
import static io.tollgate.rules.domain.Constraints.TOO_LONG;

import java.util.Map;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One tenant of the directory: a group of clients whose rules keyed {@code tenant} count together, with the plan
 * its clients default to, a label, and its own limits for rules keyed {@code tenant} (see {@link Effective}).
 *
 * @param plan
 * the plan of its clients that name none; may be {@code null}
 * @param label
 * free text; may be {@code null}
 * @param overrides
 * its limits per rule id (rules keyed {@code tenant}), ahead of any plan; empty when none
 */
@JsonPropertyOrder({"plan", "label", "overrides"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TenantEntry(
        @Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String plan,
        @Size(max = MAX_LABEL, message = TOO_LONG) String label,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<@Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String, @NotNull(message = REQUIRED) @Valid Limits> overrides) {

    public TenantEntry {
        overrides = ClientEntry.frozen(overrides);
    }
}
