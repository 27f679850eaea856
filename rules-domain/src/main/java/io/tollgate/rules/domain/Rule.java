package io.tollgate.rules.domain;

import static io.tollgate.rules.domain.Constraints.AT_LEAST;
import static io.tollgate.rules.domain.Constraints.AT_MOST;
import static io.tollgate.rules.domain.Constraints.AT_MOST_ENTRIES;
import static io.tollgate.rules.domain.Constraints.ID_MISMATCH;
import static io.tollgate.rules.domain.Constraints.ID_REGEX;
import static io.tollgate.rules.domain.Constraints.KEY_REQUIRED;
import static io.tollgate.rules.domain.Constraints.MAX_DESCRIPTION;
import static io.tollgate.rules.domain.Constraints.MAX_PLANS;
import static io.tollgate.rules.domain.Constraints.PERIOD_REQUIRED;
import static io.tollgate.rules.domain.Constraints.REQUIRED;
import static io.tollgate.rules.domain.Constraints.TOO_LONG;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/**
 * One rate-limiting rule, in its JSON wire form of docs/rules.md (snake_case). Read and check rules
 * with {@link RuleCodec}; {@link RuleValidator} checks a rule built in code against the Bean Validation
 * constraints declared on its components. The constructor only fills defaults ({@code match} any,
 * {@code algorithm} token_bucket, {@code failure_mode} local, {@code missing_key} reject); it does not
 * validate.
 *
 * @param id
 * {@code ^[a-z0-9][a-z0-9._-]{0,62}$}
 * @param description
 * free text, may be {@code null}
 * @param match
 * which requests the rule applies to
 * @param key
 * which client key the rule counts by
 * @param algorithm
 * the counting algorithm
 * @param limit
 * requests allowed per period, at least 1
 * @param period
 * the period of {@code limit}; for {@code concurrency}, which has none, its slot's time to live
 * @param burst
 * the bucket's capacity, at least 1 (the reader defaults it to {@code limit})
 * @param failureMode
 * what a check does when the counter store cannot answer in time
 * @param shadow
 * count and report, never reject
 * @param enabled
 * whether gateways apply the rule at all
 * @param missingKey
 * what to do with a request that lacks the key
 * @param plans
 * the limits of each plan that differs from the rule's own, by plan name; empty when none
 * @param cost
 * what one request spends from its bucket, from 1 (the default, left out of the wire form) to
 * {@link #MAX_COST}; at most what the bucket can hold (burst, or limit for a window), for the rule and each
 * plan
 * @param unit
 * what the limit counts: {@code requests} (the default, left out of the wire form), {@code tokens} or
 * {@code content-bytes}
 * @param calendar
 * for a {@code fixed_window} of {@code 1d}, {@code P1W} or {@code P1M}: the time zone ({@code UTC} or an IANA
 * zone) whose midnights, Mondays or 1sts its windows start at ({@link CalendarWindow}); {@code null}: windows
 * are multiples of the period since 1970
 * @param settle
 * where the gateway reads what a request really used once its answer ended, and spends the difference from its
 * cost (or gives it back); {@code null}: a request spends its cost
 * @param slotTtl
 * for {@code concurrency}: how long a request's slot stays taken when its gateway dies before giving it back
 * (the reader's default: {@link #DEFAULT_SLOT_TTL}); {@code null} for the other algorithms. On the wire
 * {@code slot_ttl}; the reader also takes it as {@code lease}, its deprecated name
 * @param leasing
 * whether a gateway may lease tokens of this rule's buckets ({@link #leases()}): {@link Leasing#AUTO} (the
 * default, left out of the wire form) or {@link Leasing#OFF}; on the wire it is {@code lease}
 */
@JsonPropertyOrder({"id", "description", "match", "key", "algorithm", "limit", "period", "burst", "cost", "unit",
        "calendar", "settle", "lease", "slot_ttl", "failure_mode", "shadow", "enabled", "missing_key", "plans"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Rule(
        @NotNull(message = REQUIRED) @Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String id,
        @Size(max = MAX_DESCRIPTION, message = TOO_LONG) String description,
        @Valid RuleMatch match,
        @NotNull(message = KEY_REQUIRED) KeySpec key,
        @JsonSerialize(using = WireSerializers.AlgorithmSerializer.class) Algorithm algorithm,
        @Min(value = 1, message = AT_LEAST) long limit,
        @NotNull(message = PERIOD_REQUIRED) @PositivePeriod @JsonSerialize(using = WireSerializers.PeriodSerializer.class) Duration period,
        @Min(value = 1, message = AT_LEAST) long burst,
        @JsonProperty("failure_mode") FailureMode failureMode,
        boolean shadow,
        boolean enabled,
        @JsonProperty("missing_key") MissingKey missingKey,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @Size(max = MAX_PLANS, message = AT_MOST_ENTRIES) Map<@Pattern(regexp = ID_REGEX, message = ID_MISMATCH) String, @NotNull(message = REQUIRED) @Valid Limits> plans,
        @Min(value = 1, message = AT_LEAST) @Max(value = MAX_COST, message = AT_MOST) @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = DefaultCost.class) long cost,
        @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = DefaultUnit.class) Unit unit,
        String calendar,
        Settle settle,
        @PositivePeriod @JsonProperty("slot_ttl") @JsonSerialize(using = WireSerializers.PeriodSerializer.class) Duration slotTtl,
        @JsonIgnore Leasing leasing) {

    /** The largest cost a rule may give a request. */
    public static final long MAX_COST = Constraints.MAX_COST;

    /** How long a {@code concurrency} rule's slot stays taken when its gateway dies, unless the rule says. */
    public static final Duration DEFAULT_SLOT_TTL = Duration.ofSeconds(60);

    /** Leaves the default cost (1) out of the wire form. */
    static final class DefaultCost {

        @Override
        public boolean equals(Object value) {
            return value instanceof Long cost && cost == 1;
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    /** Leaves the default unit (requests) out of the wire form. */
    static final class DefaultUnit {

        @Override
        public boolean equals(Object value) {
            return value == null || value == Unit.REQUESTS;
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    /** A rule that counts requests, each costing 1. */
    public Rule(String id, String description, RuleMatch match, KeySpec key, Algorithm algorithm, long limit,
            Duration period, long burst, FailureMode failureMode, boolean shadow, boolean enabled, MissingKey missingKey,
            Map<String, Limits> plans) {
        this(id, description, match, key, algorithm, limit, period, burst, failureMode, shadow, enabled, missingKey,
                plans, 1, Unit.REQUESTS, null, null, null, Leasing.AUTO);
    }

    public Rule {
        match = match == null ? RuleMatch.ANY : match;
        algorithm = algorithm == null ? Algorithm.TOKEN_BUCKET : algorithm;
        if (algorithm == Algorithm.CONCURRENCY) {
            // requests in flight have no period: the slot's time to live stands in for it wherever a period is read
            slotTtl = slotTtl == null ? DEFAULT_SLOT_TTL : slotTtl;
            period = period == null ? slotTtl : period;
        }
        // a calendar window or a count in flight has no share to give each gateway: without the store, its
        // requests pass
        boolean shareless = calendar != null || algorithm == Algorithm.CONCURRENCY;
        failureMode = failureMode == null ? (shareless ? FailureMode.OPEN : FailureMode.LOCAL) : failureMode;
        missingKey = missingKey == null ? MissingKey.REJECT : missingKey;
        plans = plans == null || plans.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(plans));
        unit = unit == null ? Unit.REQUESTS : unit;
        leasing = leasing == null ? Leasing.AUTO : leasing;
    }

    /**
     * A rule with every default: any method and path, token bucket, burst = limit, local failure mode,
     * enforced, enabled, missing key rejected.
     */
    public static Rule of(String id, String path, KeySpec key, long limit, Duration period) {
        return new Rule(id, null, new RuleMatch(null, path), key, Algorithm.TOKEN_BUCKET, limit, period, limit,
                FailureMode.LOCAL, false, true, MissingKey.REJECT, Map.of());
    }

    /**
     * Whether a gateway may lease tokens of this rule's buckets: leasing is {@code auto}, the rule enforces (a
     * shadow rule is checked apart from the enforced ones, each request counted in the store) and its algorithm is a bucket
     * ({@code token_bucket} or
     * {@code gcra}; a window or a count in flight has no tokens to lease).
     */
    public boolean leases() {
        return leasing == Leasing.AUTO && !shadow
                && (algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA);
    }

    /** The wire form of {@code lease}: {@code off} when leasing is off; {@code null} (left out) for {@code auto}. */
    @JsonProperty("lease")
    String wireLease() {
        return leasing == Leasing.AUTO ? null : leasing.wireName();
    }

    /** What one bucket of this rule allows, and what a request spends from it, for the counter scripts. */
    public Policy policy() {
        return new Policy(algorithm, limit, period.toMillis(), burst, cost);
    }

    /** The same rule with other plans. */
    public Rule withPlans(Map<String, Limits> newPlans) {
        return new Rule(id, description, match, key, algorithm, limit, period, burst, failureMode, shadow, enabled,
                missingKey, newPlans, cost, unit, calendar, settle, slotTtl, leasing);
    }

    /** The same rule with another cost per request. */
    public Rule withCost(long newCost) {
        return new Rule(id, description, match, key, algorithm, limit, period, burst, failureMode, shadow, enabled,
                missingKey, plans, newCost, unit, calendar, settle, slotTtl, leasing);
    }

    /**
     * What a bucket of this rule under {@code limit} and {@code burst} can hold: the burst, or for a window (and for
     * requests in flight) the limit.
     */
    public long capacity(long limit, long burst) {
        return algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA ? burst : limit;
    }

    /** The compiled {@code match.path}. */
    public PathPattern pathPattern() {
        return PathPattern.compile(match.path());
    }
}
