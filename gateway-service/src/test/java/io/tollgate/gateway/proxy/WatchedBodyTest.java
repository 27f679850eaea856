package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;

/** A body detached from its client is read on for the tap alone; what the pipe asks of it then counts for nothing. */
class WatchedBodyTest {

    private final Source source = new Source();
    private final List<String> tapped = new ArrayList<>();
    private final List<String> piped = new ArrayList<>();
    private final List<String> told = new ArrayList<>();
    private final WatchedBody body = new WatchedBody(source, chunk -> tapped.add(chunk.toString()), null);

    private final WatchedBody.Reader reader = new WatchedBody.Reader() {

        @Override
        public void read(int bytes) {
            told.add("read " + bytes);
        }

        @Override
        public void ended(boolean whole) {
            told.add("ended " + whole);
        }
    };

    @Test
    void aDetachedBodyGoesToTheTapAloneUnpausedWhateverThePipeAsks() {
        body.handler(chunk -> piped.add(chunk.toString()));
        body.endHandler(v -> piped.add("end"));
        source.emit("a");
        body.pause();
        assertThat(body.pausedAtNanos()).as("held back by the pipe").isNotNegative();

        body.detach(reader);
        assertThat(source.paused).as("read on").isFalse();
        assertThat(body.pausedAtNanos()).isEqualTo(-1);
        body.handler(null); // the pipe lets go, as it does when its destination fails
        body.pause();
        source.emit("bc");
        source.end();

        assertThat(source.paused).isFalse();
        assertThat(tapped).containsExactly("a", "bc");
        assertThat(piped).containsExactly("a");
        assertThat(told).containsExactly("read 2", "ended true");
    }

    @Test
    void aBodyThatEndedOrFailedBeforeItWasDetachedSaysSoAtOnce() {
        body.endHandler(v -> piped.add("end"));
        body.endHandler(null); // the pipe's cleanup before the end came
        source.end();
        body.detach(reader);
        assertThat(told).containsExactly("ended true");

        Source failing = new Source();
        WatchedBody broken = new WatchedBody(failing, null, null);
        broken.exceptionHandler(err -> piped.add("failed"));
        failing.fail(new IllegalStateException("upstream reset"));
        assertThat(broken.failed()).isTrue();
        broken.detach(reader);
        broken.detach(reader);
        assertThat(told).containsExactly("ended true", "ended false");
        assertThat(piped).containsExactly("failed");
    }

    @Test
    void theTailIsCopiedBeforeThePipeEndsAnUndetachedBody() {
        List<String> order = new ArrayList<>();
        WatchedBody trailed = new WatchedBody(source, null, () -> order.add("trailers"));
        trailed.endHandler(v -> order.add("end"));
        source.end();
        assertThat(order).containsExactly("trailers", "end");
    }

    /** A body the test feeds by hand. */
    private static final class Source implements ReadStream<Buffer> {

        private Handler<Buffer> handler;
        private Handler<Void> endHandler;
        private Handler<Throwable> exceptionHandler;
        private boolean paused;

        void emit(String chunk) {
            handler.handle(Buffer.buffer(chunk));
        }

        void end() {
            endHandler.handle(null);
        }

        void fail(Throwable err) {
            exceptionHandler.handle(err);
        }

        @Override
        public ReadStream<Buffer> handler(Handler<Buffer> handler) {
            this.handler = handler;
            return this;
        }

        @Override
        public ReadStream<Buffer> pause() {
            paused = true;
            return this;
        }

        @Override
        public ReadStream<Buffer> resume() {
            paused = false;
            return this;
        }

        @Override
        public ReadStream<Buffer> fetch(long amount) {
            return this;
        }

        @Override
        public ReadStream<Buffer> exceptionHandler(Handler<Throwable> handler) {
            this.exceptionHandler = handler;
            return this;
        }

        @Override
        public ReadStream<Buffer> endHandler(Handler<Void> endHandler) {
            this.endHandler = endHandler;
            return this;
        }
    }
}
