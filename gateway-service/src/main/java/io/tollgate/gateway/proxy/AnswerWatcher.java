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
     * The exchange is over.
     *
     * @param whole the answer reached the client whole; false when there was no answer or it broke off
     */
    default void ended(boolean whole) {
    }
}
