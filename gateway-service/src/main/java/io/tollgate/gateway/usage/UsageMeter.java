package io.tollgate.gateway.usage;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * Reads what one answer used while it streams past; memory bounded whatever the answer's size. One per answer,
 * used on one thread. Made by {@link UsageMeters}.
 */
public interface UsageMeter {

    /**
     * The request's headers as they go to the upstream, before any answer: a meter that reads the body leaves in
     * {@code Accept-Encoding} only the codings it decodes.
     */
    default void request(MultiMap headers) {
    }

    /** The answer's head, before any body. */
    void head(int status, MultiMap headers);

    /** Each piece of the body as relayed, in order. The meter reads it and keeps no reference to it. */
    void body(Buffer chunk);

    /** The body ended whole: what it used. */
    Usage end();

    /**
     * Whether what the answer used is known already, whatever the rest of it holds (a header's usage, once the head
     * came): the gateway then need not read the rest of an answer whose client left.
     */
    default boolean known() {
        return false;
    }

    /**
     * The answer broke off, or its client went away: what it is known to have used all the same (a header's usage,
     * read with the head), else {@link Usage#ABSENT}. The meter is done with.
     */
    default Usage cut() {
        return Usage.ABSENT;
    }
}
