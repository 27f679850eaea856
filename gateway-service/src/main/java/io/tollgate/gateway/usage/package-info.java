/**
 * Usage meters: what a request of a rule with {@code settle} used, read from its answer as it goes by (a header,
 * a JSON value, an event stream's last event, the answer's size; compressed bodies as they decompress). A meter
 * only reads; what the request then owes its buckets is its settlement ({@code limiter.settlement}).
 */
package io.tollgate.gateway.usage;
