package io.tollgate.rules.domain;

import static io.tollgate.rules.domain.Constraints.AT_LEAST;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

/**
 * The numbers a plan of a rule, or an override of a client or tenant, sets for one rule: each may be left out
 * ({@code null}), and then is the rule's, except that a {@code limit} set without a {@code burst} gets burst =
 * that limit. {@code limit: 0} always rejects. The algorithm stays the rule's.
 *
 * @param limit
 * requests per period, 0 or more; {@code null}: the rule's
 * @param period
 * the period of {@code limit}; {@code null}: the rule's
 * @param burst
 * the bucket's capacity, at least 1; {@code null}: the limit set here, else the rule's burst
 */
@JsonPropertyOrder({"limit", "period", "burst"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Limits(
        @Min(value = 0, message = AT_LEAST) Long limit,
        @PositivePeriod @JsonSerialize(using = WireSerializers.PeriodSerializer.class) Duration period,
        @Min(value = 1, message = AT_LEAST) Long burst) {

    /** The limit these numbers give a rule whose own is {@code ruleLimit}. */
    public long limitOr(long ruleLimit) {
        return limit != null ? limit : ruleLimit;
    }

    /** The period these numbers give a rule whose own is {@code rulePeriod}. */
    public Duration periodOr(Duration rulePeriod) {
        return period != null ? period : rulePeriod;
    }

    /**
     * The burst these numbers give a rule whose own is {@code ruleBurst}: their own, else the limit they set, else
     * the rule's.
     */
    public long burstOr(long ruleBurst) {
        if (burst != null) {
            return burst;
        }
        return limit != null ? Math.max(1, limit) : ruleBurst;
    }
}
