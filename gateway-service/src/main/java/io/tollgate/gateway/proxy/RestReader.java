package io.tollgate.gateway.proxy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;

/**
 * Reads the rest of an answer for the usage it ends with once its client can take no more (docs/security.md,
 * "Settled usage"): the client left (a closed connection, a reset stream), or took none of the answer for
 * {@code tollgate.settle.client-stall} and is let go (its stream reset, its HTTP/1.1 connection closed), so neither
 * leaving nor a flow-control window kept shut leaves the usage unread. What the client can no longer take is
 * discarded as it is read. The reading is bounded: past {@code tollgate.settle.rest-max-size} bytes or
 * {@code rest-timeout} the upstream's answer is reset and the exchange ends as one broken off, which its rules charge
 * {@code settle.otherwise}; an upstream that falls silent is cut by the loop's {@link StallWatch}, as ever.
 * <p>
 * A {@link Rest} is confined to its answer's event loop.
 */
final class RestReader {

    private static final Logger LOG = Logger.getLogger(RestReader.class);

    private final Vertx vertx;
    private final long clientStallMs;
    private final long maxBytes;
    private final long timeoutMs;

    /** @throws ConfigError naming the key of a bound that is not positive */
    RestReader(Vertx vertx, GatewayConfig.Settle settle) {
        this.vertx = vertx;
        this.clientStallMs = positive("tollgate.settle.client-stall", settle.clientStall());
        this.timeoutMs = positive("tollgate.settle.rest-timeout", settle.restTimeout());
        this.maxBytes = settle.restMaxSize().asLongValue();
        if (maxBytes <= 0) {
            throw ConfigError.of("tollgate.settle.rest-max-size", settle.restMaxSize().asLongValue(),
                    "must be positive");
        }
    }

    private static long positive(String key, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw ConfigError.of(key, value, "must be positive");
        }
        return value.toMillis();
    }

    /**
     * Watches {@code body} on its way to {@code response} (the client leaving, or taking nothing for too long);
     * {@code ended} is told how the exchange ended once a rest read has ended: true when the upstream's answer was
     * read to its end; {@code reading} is told once when the rest starts to be read. Takes over {@code response}'s
     * close handler.
     */
    Rest watch(WatchedBody body, HttpServerResponse response, HttpClientResponse in, Runnable reading,
            Consumer<Boolean> ended) {
        return new Rest(body, response, in, reading, ended);
    }

    /** One answer's watch and, once its client can take no more, the reading of its rest. */
    final class Rest implements WatchedBody.Reader {

        private final WatchedBody body;
        private final HttpServerResponse response;
        private final HttpClientResponse in;
        private final Runnable onReading;
        private final Consumer<Boolean> ended;
        private long bytes;
        private long stallTimer = -1;
        private long deadline = -1;
        private boolean reading;
        private boolean over;

        private Rest(WatchedBody body, HttpServerResponse response, HttpClientResponse in, Runnable onReading,
                Consumer<Boolean> ended) {
            this.body = body;
            this.response = response;
            this.in = in;
            this.onReading = onReading;
            this.ended = ended;
            body.onPause(this::paused);
            response.closeHandler(v -> {
                if (!response.ended()) {
                    readRest(); // the client left before its answer was whole
                }
            });
        }

        /** The client can take no more: from now on the rest of the answer is read for its usage alone. Once. */
        void readRest() {
            if (reading || over) {
                return;
            }
            reading = true;
            onReading.run();
            cancelStallTimer();
            deadline = vertx.setTimer(timeoutMs,
                    id -> cut("took longer than tollgate.settle.rest-timeout (" + timeoutMs + " ms)"));
            body.detach(this);
        }

        /** The exchange ended without a rest to read (its answer whole, or broken off upstream): the watch ends. */
        void stop() {
            over = true;
            cancelStallTimer();
        }

        /** Whether the rest is being read, or was. */
        boolean reading() {
            return reading;
        }

        /** The pipe holds the answer back: one timer at a time checks whether the client takes any of it in time. */
        private void paused() {
            if (stallTimer < 0 && !reading) {
                stallTimer = vertx.setTimer(clientStallMs, id -> stalled());
            }
        }

        private void stalled() {
            stallTimer = -1;
            long since = body.pausedAtNanos();
            if (reading || since < 0) {
                return; // the client took more meanwhile; the next pause checks again
            }
            long left = clientStallMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
            if (left > 0) {
                stallTimer = vertx.setTimer(left, id -> stalled());
                return;
            }
            LOG.debugf("a client took none of a metered answer for %d ms: let go, the rest is read for the usage",
                    clientStallMs);
            if (!response.closed()) { // a stream already reset is reset once
                response.reset();
            }
            readRest();
        }

        @Override
        public void read(int pieceBytes) {
            bytes += pieceBytes;
            if (bytes > maxBytes) {
                cut("is longer than tollgate.settle.rest-max-size (" + maxBytes + " bytes)");
            }
        }

        @Override
        public void ended(boolean whole) {
            finish(whole);
        }

        private void cut(String why) {
            if (over) {
                return;
            }
            LOG.debugf("the rest of an answer whose client left %s: cut, charged settle.otherwise", why);
            finish(false);
            in.request().reset();
        }

        private void finish(boolean whole) {
            if (over) {
                return;
            }
            over = true;
            if (deadline >= 0) {
                vertx.cancelTimer(deadline);
            }
            cancelStallTimer();
            ended.accept(whole);
        }

        private void cancelStallTimer() {
            if (stallTimer >= 0) {
                vertx.cancelTimer(stallTimer);
                stallTimer = -1;
            }
        }
    }
}
