/**
 * The counter store behind its guard: {@link io.tollgate.gateway.limiter.guard.GuardedStore} bounds every call by
 * {@code tollgate.store.timeout} and a {@link io.tollgate.gateway.limiter.guard.CircuitBreaker};
 * {@link io.tollgate.gateway.limiter.guard.FailurePolicy} decides, in one place, what a check does when the store
 * cannot answer (each rule's {@code failure_mode}), with {@link io.tollgate.gateway.limiter.guard.FallbackBuckets}
 * for {@code local}.
 */
package io.tollgate.gateway.limiter.guard;
