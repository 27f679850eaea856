package io.tollgate.gateway.proxy;

import java.util.function.Consumer;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/**
 * A body as a pipe reads it, each piece shown to {@code tap} before it goes on, and its end to {@code atEnd}
 * before the pipe ends its destination (where an answer's trailers are copied while they can still be sent).
 * <p>
 * The body's own handlers stay this one's, whatever the pipe sets, so it can be {@linkplain #detach detached}: once
 * the client can take no more, the rest goes to {@code tap} alone, as fast as the upstream sends it, and a
 * {@link Reader} is told of it, the pipe no longer.
 */
final class WatchedBody implements ReadStream<Buffer> {

    /** Reads a detached body: each piece's size, then how the body ended. */
    interface Reader {

        void read(int bytes);

        /** {@code whole}: the body ended; false: it failed. */
        void ended(boolean whole);
    }

    private final ReadStream<Buffer> source;
    private final Consumer<Buffer> tap;
    private final Runnable atEnd;
    /** The pipe's handlers; they take nothing once the body is detached. */
    private Handler<Buffer> handler;
    private Handler<Void> endHandler;
    private Handler<Throwable> exceptionHandler;
    private boolean installed;
    private boolean ended;
    private boolean failed;
    private Reader detached;
    /** When the pipe last held the body back ({@link System#nanoTime}), while it does; else -1. */
    private long pausedAtNanos = -1;
    private Runnable onPause;

    /** {@code tap} or {@code atEnd} may be null: that one is not called. */
    WatchedBody(ReadStream<Buffer> source, Consumer<Buffer> tap, Runnable atEnd) {
        this.source = source;
        this.tap = tap;
        this.atEnd = atEnd;
    }

    /** {@code onPause} runs each time the pipe holds the body back (the client takes no more for now). */
    void onPause(Runnable onPause) {
        this.onPause = onPause;
    }

    /** Since when the pipe holds the body back, or -1 while it does not. */
    long pausedAtNanos() {
        return pausedAtNanos;
    }

    /** Whether the body failed (the upstream's side broke off), as opposed to its client going. */
    boolean failed() {
        return failed;
    }

    /**
     * From now on the body goes to {@code tap} alone, unpaused, and {@code reader} is told of it; at once when the
     * body has already ended or failed. Once only: a second call does nothing.
     */
    void detach(Reader reader) {
        if (detached != null) {
            return;
        }
        detached = reader;
        pausedAtNanos = -1;
        install();
        if (ended || failed) {
            reader.ended(ended);
        } else {
            source.resume();
        }
    }

    /** The body's handlers are this one's from the pipe's first on, so that a detached body is still read. */
    private void install() {
        if (!installed) {
            installed = true;
            source.handler(this::piece);
            source.endHandler(this::end);
            source.exceptionHandler(this::fail);
        }
    }

    private void piece(Buffer chunk) {
        if (tap != null) {
            tap.accept(chunk);
        }
        if (detached != null) {
            detached.read(chunk.length());
        } else if (handler != null) {
            handler.handle(chunk);
        }
    }

    private void end(Void v) {
        ended = true;
        if (detached != null) {
            detached.ended(true);
        } else if (endHandler != null) {
            if (atEnd != null) {
                atEnd.run();
            }
            endHandler.handle(v);
        }
    }

    private void fail(Throwable err) {
        failed = true;
        if (detached != null) {
            detached.ended(false);
        } else if (exceptionHandler != null) {
            exceptionHandler.handle(err);
        }
    }

    @Override
    public ReadStream<Buffer> handler(Handler<Buffer> handler) {
        this.handler = handler;
        if (handler != null) {
            install();
        }
        return this;
    }

    @Override
    public ReadStream<Buffer> pause() {
        if (detached == null) {
            pausedAtNanos = System.nanoTime();
            source.pause();
            if (onPause != null && handler != null) { // the pipe's own pause before it starts is no client's
                onPause.run();
            }
        }
        return this;
    }

    @Override
    public ReadStream<Buffer> resume() {
        if (detached == null) {
            pausedAtNanos = -1;
            source.resume();
        }
        return this;
    }

    @Override
    public ReadStream<Buffer> fetch(long amount) {
        if (detached == null) {
            source.fetch(amount);
        }
        return this;
    }

    @Override
    public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
        this.exceptionHandler = handler;
        if (handler != null) {
            install();
        }
        return this;
    }

    @Override
    public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
        this.endHandler = endHandler;
        if (endHandler != null) {
            install();
        }
        return this;
    }
}
