package io.tollgate.gateway.proxy;

import java.util.function.Consumer;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * A body as a pipe reads it, each piece shown to {@code tap} before it goes on, and its end to {@code atEnd}
 * before the pipe ends its destination (where an answer's trailers are copied while they can still be sent).
 */
final class WatchedBody implements ReadStream<Buffer> {

    private final ReadStream<Buffer> source;
    private final Consumer<Buffer> tap;
    private final Runnable atEnd;

    /** {@code tap} or {@code atEnd} may be null: that one is not called. */
    WatchedBody(ReadStream<Buffer> source, Consumer<Buffer> tap, Runnable atEnd) {
        this.source = source;
        this.tap = tap;
        this.atEnd = atEnd;
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> handler) {
        source.handler(handler == null || tap == null ? handler : chunk -> {
            tap.accept(chunk);
            handler.handle(chunk);
        });
        return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
        source.pause();
        return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
        source.resume();
        return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
        source.fetch(amount);
        return this;
    }

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
        source.exceptionHandler(handler);
        return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
        source.endHandler(endHandler == null || atEnd == null ? endHandler : v -> {
            atEnd.run();
            endHandler.handle(v);
        });
        return this;
    }
}
