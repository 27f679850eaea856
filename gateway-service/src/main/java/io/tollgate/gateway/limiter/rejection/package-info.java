/**
 * Remembered rejections: {@link io.tollgate.gateway.limiter.rejection.RejectionCache} answers a rejected bucket's
 * requests from memory until its retry time, so a flooding client costs few store calls;
 * {@link io.tollgate.gateway.limiter.rejection.RejectedClients} is told of every rejected client (the management
 * interface's {@code top}).
 */
package io.tollgate.gateway.limiter.rejection;
