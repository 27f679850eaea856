/**
 * Deciding a request: {@link io.tollgate.gateway.limiter.Limiter#check} has the request's rules turned into groups
 * of buckets ({@code targets}), passes each group through the pipeline of stages ({@code pipeline}: token leases in
 * {@code lease}, remembered rejections in {@code rejection}, the store behind its guard with the failure modes in
 * {@code guard}) and makes the verdict of their decisions ({@code decision}); {@code settlement} is what an admitted
 * request owes once its answer ends. {@link io.tollgate.gateway.limiter.LimiterWiring} builds the limiter and its
 * pipeline from configuration.
 */
package io.tollgate.gateway.limiter;
