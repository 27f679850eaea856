package io.tollgate.gateway.proxy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.streams.ReadStream;

/**
 * Cuts upstream answers that fall silent mid-body. Vert.x times a request only until its answer's head
 * arrives; after that a backend that stops sending would hold the client's connection and its own for ever.
 * One event loop's answers being streamed are swept a few times per timeout: an answer that sent nothing
 * for {@code timeout} while the gateway was ready to read it is reset, which breaks the client's answer as
 * any broken upstream answer does. An answer held back by a slow client (the pipe paused it) is not silent:
 * a connection-level idle timeout would cut slow downloads, which is why this is not one.
 * <p>
 * Confined to its event loop's thread: every method is called there.
 */
final class StallWatch {

    private final long timeoutNanos;
    private final Set<Watched> streaming = new HashSet<>();
    private final long sweeper;
    private final Vertx vertx;

    /** Sweeps on the calling event loop, every quarter of {@code timeoutMs} (50 ms to 1 s). */
    StallWatch(Vertx vertx, long timeoutMs) {
        this.vertx = vertx;
        this.timeoutNanos = timeoutMs * 1_000_000;
        this.sweeper = vertx.setPeriodic(Math.max(50, Math.min(1000, timeoutMs / 4)), id -> sweep());
    }

    /** {@code in}'s body, watched until {@link #done} is called with what this returned. */
    Watched watch(HttpClientResponse in) {
        Watched watched = new Watched(in);
        streaming.add(watched);
        return watched;
    }

    void done(Watched watched) {
        streaming.remove(watched);
    }

    void close() {
        vertx.cancelTimer(sweeper);
    }

    private void sweep() {
        if (streaming.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        List<Watched> stalled = null;
        for (Watched w : streaming) {
            if (w.paused || w.read) {
                w.read = false;
                w.activeAt = now;
            } else if (now - w.activeAt >= timeoutNanos) {
                if (stalled == null) {
                    stalled = new ArrayList<>(1);
                }
                stalled.add(w);
            }
        }
        if (stalled != null) {
            // after the loop: a reset runs the pipe's failure handlers, which leave the set
            for (Watched w : stalled) {
                streaming.remove(w);
                w.in.request().reset(0, new TimeoutException(
                        "upstream sent nothing for " + timeoutNanos / 1_000_000 + " ms mid-answer"));
            }
        }
    }

    /** The answer's body as the pipe reads it, noting each chunk and whether the pipe holds it back. */
    static final class Watched implements ReadStream<Buffer> {

        private final HttpClientResponse in;
        private boolean read;
        private boolean paused;
        private long activeAt = System.nanoTime();

        private Watched(HttpClientResponse in) {
            this.in = in;
        }

        @Override
        public ReadStream<Buffer> handler(Handler<Buffer> handler) {
            in.handler(handler == null ? null : chunk -> {
                read = true;
                handler.handle(chunk);
            });
            return this;
        }

        @Override
        public ReadStream<Buffer> pause() {
            paused = true;
            in.pause();
            return this;
        }

        @Override
        public ReadStream<Buffer> resume() {
            paused = false;
            read = true; // the silence counts from here
            in.resume();
            return this;
        }

        @Override
        public ReadStream<Buffer> fetch(long amount) {
            in.fetch(amount);
            return this;
        }

        @Override
        public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
            in.exceptionHandler(handler);
            return this;
        }

        @Override
        public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
            in.endHandler(endHandler);
            return this;
        }
    }
}
