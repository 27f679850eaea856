/**
 * A group's check as a pipeline: a {@link io.tollgate.gateway.limiter.pipeline.Group} (the buckets of one request
 * under one hash tag) passes through {@link io.tollgate.gateway.limiter.pipeline.Stage}s in order, each able to
 * answer it or pass it on: remembered rejections, token leases, and last the store behind its guard with the
 * failure mode. {@link io.tollgate.gateway.limiter.pipeline.Pipeline} runs them and tells each what the store said.
 */
package io.tollgate.gateway.limiter.pipeline;
