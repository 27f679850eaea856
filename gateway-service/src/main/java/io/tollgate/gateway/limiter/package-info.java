/**
 * Deciding a request: {@link io.tollgate.gateway.limiter.Limiter#check} takes the rules that match it, works out
 * each rule's client key, policy and bucket, groups the buckets by hash tag and asks the store once per group.
 * {@link io.tollgate.gateway.limiter.LimiterWiring} builds the limiter and its parts, which live in the packages
 * below this one: the answers ({@code decision}), the store behind its guard ({@code guard}), token leases
 * ({@code lease}), remembered rejections ({@code rejection}) and what an answer owes ({@code settlement}).
 */
package io.tollgate.gateway.limiter;
