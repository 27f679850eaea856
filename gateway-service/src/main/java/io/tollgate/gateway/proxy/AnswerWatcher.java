package io.tollgate.gateway.proxy;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * Sees one proxied answer go past: its head, each piece of its body as it is relayed, and how the exchange
 * ended. Every call comes on the request's event loop; {@link #ended} comes exactly once, however the exchange
 * ends (the backend unreachable or silent, the client gone, the answer broken off, or whole).
 */
public interface AnswerWatcher {

    /** Watches nothing. */
    AnswerWatcher NONE = new AnswerWatcher() {
    };

    /**
     * The request's headers as they go to the upstream, before it is sent: a watcher may narrow what the request
     * asks for (the codings a meter of its answer decodes).
     */
    default void request(MultiMap headers) {
    }

    /** The answer's head, before any of its body. */
    default void head(int status, MultiMap headers) {
    }

    /** A piece of the answer's body, as it is relayed to the client. */
    default void body(Buffer chunk) {
    }

    /**
     * Whether the rest of the answer is still wanted should its client leave now (the usage it ends with has not come
     * yet). Then the exchange goes on without the client: the gateway reads the answer for this watcher alone,
     * within {@code tollgate.settle}'s bounds, and {@link #ended} comes when that reading ends.
     */
    default boolean readsRest() {
        return false;
    }

    /**
     * The client can take no more and the gateway now reads the rest of the answer for this watcher alone: the
     * exchange goes on without its client, until {@link #ended}, which the reading's bounds guarantee.
     */
    default void readingRest() {
    }

    /**
     * The exchange is over.
     *
     * @param whole the answer was read to its end: by its client or, once the client had left, by the gateway; false
     * when there was no answer, or it broke off
     */
    default void ended(boolean whole) {
    }
}
