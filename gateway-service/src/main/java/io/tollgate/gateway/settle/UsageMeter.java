package io.tollgate.gateway.settle;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * Reads what one answer used while it streams past; memory bounded whatever the answer's size. One per answer,
 * used on one thread. Made by {@link UsageMeters}.
 */
public interface UsageMeter {

    /** The answer's head, before any body. */
    void head(int status, MultiMap headers);

    /** Each piece of the body as relayed, in order. The meter reads it and keeps no reference to it. */
    void body(Buffer chunk);

    /** The body ended whole: what it used. An answer cut short has no usage to read: its meter is dropped. */
    Usage end();
}
