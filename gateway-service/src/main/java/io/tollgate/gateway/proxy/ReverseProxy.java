package io.tollgate.gateway.proxy;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkus.runtime.Startup;
import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.config.PerEventLoop;
import io.tollgate.gateway.key.ClientAddress;
import io.tollgate.rules.domain.CanonicalPath;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.streams.Pipe;
import io.vertx.core.streams.ReadStream;

/**
 * Forwards a request to its upstream through pooled keep-alive Vert.x clients, streaming both bodies
 * with back-pressure (nothing is buffered whole), dropping hop-by-hop headers and adding
 * {@code X-Forwarded-For/-Proto/-Host}. Never blocks: everything runs on the request's event loop.
 * <p>
 * One client (and so one connection pool) per event loop: a Vert.x pool hands its most recently used
 * connection to whichever loop asks, and a connection owned by another loop makes every read and write of
 * the exchange hop between threads (a task and a selector wake-up each way), at a cost in CPU to every
 * request. Per loop, a request's upstream connection lives on its own thread.
 * <p>
 * Upstream silence: until the answer's head, the request's idle timeout ({@code upstream-timeout}, or a gRPC
 * call's deadline when that comes first; then 504); after it, the loop's {@link StallWatch} (the answer is cut).
 * <p>
 * A client that leaves, or takes nothing for too long, while its answer's usage is still to come does not end the
 * exchange: the answer is read on for the usage alone ({@link RestReader}).
 */
@Startup // built at start, so a bad value fails the start naming its key
@ApplicationScoped
public class ReverseProxy {

    private static final Logger LOG = Logger.getLogger(ReverseProxy.class);

    private static final Set<HttpMethod> BODILESS = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
            HttpMethod.TRACE);

    static final String CLIENT_IDLE_TIMEOUT = "quarkus.http.idle-timeout";

    /**
     * The upstream request's failures, which its response and pipes report already: mostly its reset when the client
     * reset or left, the client's doing and no error (Vert.x logs an ERROR per failure of a request with no handler).
     */
    private static final Handler<Throwable> QUIET = err -> LOG.debugf("upstream request: %s", err.toString());

    private final Vertx vertx;
    private final ClientAddress clientAddress;
    private final Upstreams upstreams;
    private final UpstreamClients offLoop;
    private final PerEventLoop<Loop> byLoop;
    private final long connectTimeoutMs;
    private final long idleTimeoutMs;
    /** The wait of every request that is not a gRPC call with a shorter deadline: one instance, shared. */
    private final HeadWait upstreamTimeout;
    private final RestReader rests;

    ReverseProxy(Vertx vertx, GatewayConfig config, ClientAddress clientAddress, UpstreamTls tls) {
        this.vertx = vertx;
        this.clientAddress = clientAddress;
        this.upstreams = new Upstreams(config.gateway());
        this.connectTimeoutMs = config.gateway().connectTimeout().toMillis();
        this.idleTimeoutMs = config.gateway().upstreamTimeout().toMillis();
        this.upstreamTimeout = new HeadWait(idleTimeoutMs, 0, null);
        this.rests = new RestReader(vertx, config.settle());
        checkClientIdleTimeout(ConfigProvider.getConfig().getOptionalValue(CLIENT_IDLE_TIMEOUT, Duration.class),
                config.gateway().upstreamTimeout());
        this.offLoop = new UpstreamClients(vertx, tls);
        this.byLoop = new PerEventLoop<>(
                thread -> new Loop(new UpstreamClients(vertx, tls), new StallWatch(vertx, idleTimeoutMs)));
    }

    /**
     * The client's connection is idle while the gateway waits for the backend's answer: closing it sooner
     * than {@code upstream-timeout} would cut the client before its 504.
     *
     * @throws ConfigError naming {@value #CLIENT_IDLE_TIMEOUT} when it is not longer
     */
    static void checkClientIdleTimeout(Optional<Duration> clientIdle, Duration upstreamTimeout) {
        if (clientIdle.isPresent() && !clientIdle.get().isZero() && clientIdle.get().compareTo(upstreamTimeout) <= 0) {
            throw ConfigError.of(CLIENT_IDLE_TIMEOUT, clientIdle.get(),
                    "must be longer than tollgate.gateway.upstream-timeout (" + upstreamTimeout
                            + "): a client waiting for a slow backend would be cut before its 504");
        }
    }

    /** An event loop's own upstream clients, and the watch over the answers they stream. */
    private record Loop(UpstreamClients clients, StallWatch stalls) {
    }

    /** The calling event loop's own; null off an event loop (the shared client then, unwatched). */
    private Loop loop() {
        return byLoop.of(Vertx.currentContext());
    }

    /**
     * Sends {@code request} (paused by the caller) to the upstream of its canonical {@code path}, as that path
     * (what was counted is what the backend acts on) with the query string as sent, and streams the answer back,
     * letting {@code extraHeaders} add headers before the answer's head is written; {@code watcher} sees the
     * exchange to its end. Fails with {@link UpstreamFailure} when nothing was sent yet; after that a broken stream
     * just closes the connection. An HTTP/2 upstream's reset of the stream reaches an HTTP/2 client as a reset with
     * the same code, before the answer's head as after it.
     */
    public Future<Void> forward(HttpServerRequest request, CanonicalPath path, Consumer<MultiMap> extraHeaders,
            AnswerWatcher watcher) {
        return forward(request, path, extraHeaders, upstreams.forPath(path.matchPath()), watcher);
    }

    /**
     * The same to {@code target}, whatever the request's path: the start-up warm-up's loopback target, which
     * its requests reach through this very path.
     */
    public Future<Void> forward(HttpServerRequest request, CanonicalPath path, Consumer<MultiMap> extraHeaders,
            URI target, AnswerWatcher watcher) {
        return forward(request, path, extraHeaders, Upstreams.Upstream.of("warm-up target", target), watcher);
    }

    private Future<Void> forward(HttpServerRequest request, CanonicalPath path, Consumer<MultiMap> extraHeaders,
            Upstreams.Upstream upstream, AnswerWatcher watcher) {
        String query = request.query();
        RequestOptions options = new RequestOptions()
                .setMethod(request.method())
                .setHost(upstream.host())
                .setPort(upstream.port())
                .setSsl(upstream.ssl())
                .setURI(upstream.basePath() + (query == null ? path.path() : path.path() + "?" + query))
                .setConnectTimeout(connectTimeoutMs);
        boolean http2 = request.version() == HttpVersion.HTTP_2;
        // gRPC is HTTP/2 only: an HTTP/1.1 request has no deadline to read
        HeadWait wait = http2 ? headWait(request.getHeader(GrpcDeadline.HEADER)) : upstreamTimeout;
        if (http2) {
            // the answer's HEADERS, DATA and trailers, written while the upstream's connection is read: one flush
            Flushes.gather(request.connection());
        }
        Promise<Void> done = Promise.promise();
        Loop loop = loop();
        HttpClientRequest[] sent = new HttpClientRequest[1];
        ClientReset clientReset = ClientReset.of(request.response());
        AnswerWatcher watching = watcher == AnswerWatcher.NONE ? watcher : new EndedOnce(watcher);
        HttpServerResponse response = request.response();
        response.closeHandler(v -> {
            if (!response.ended() && !watching.readsRest()) { // else the answer is read for its usage all the same
                // the client went away before its answer was whole: the exchange is over for the watcher, and the
                // backend stops working for nobody, told as the client told the gateway (a gRPC cancel is CANCEL)
                watching.ended(false);
                if (sent[0] != null) {
                    sent[0].reset(clientReset.code());
                }
            }
        });
        (loop == null ? offLoop : loop.clients()).of(upstream.protocol()).request(options)
                .compose(out -> {
                    sent[0] = out;
                    out.exceptionHandler(QUIET);
                    if (response.closed()) {
                        // the client left while the upstream's connection was had: nothing is sent for nobody, and
                        // the connection goes back to the pool (an HTTP/2 request reset meanwhile can no longer be
                        // read: a request left unsent would hold its connection for good)
                        out.reset(clientReset.code());
                        return Future.failedFuture(new StreamResetException(clientReset.code()));
                    }
                    try {
                        return send(request, out, upstream, wait, watching);
                    } catch (RuntimeException err) {
                        out.reset(clientReset.code());
                        return Future.failedFuture(err);
                    }
                })
                // the answer is delivered on the context this chain is built on, the request's: relay sets the body's
                // handlers in the turn the head arrives, before any of the body (Vert.x drops chunks no handler takes)
                .onSuccess(in -> relay(in, request.response(), extraHeaders, done, loop, watching, clientReset))
                .onFailure(err -> {
                    if (http2 && err instanceof StreamResetException reset) {
                        // the upstream reset the stream before its answer (REFUSED_STREAM: it took none of it): the
                        // client's stream is reset with the same code, as the upstream would have reset it; unless
                        // the client reset it first (this is then its reset, passed on), as a second reset of a
                        // stream would reach the client as a frame of a stream it closed
                        if (!request.response().closed()) {
                            request.response().reset(reset.getCode());
                        }
                        done.tryComplete();
                    } else {
                        done.tryFail(failure(err, upstream, wait));
                    }
                    watching.ended(false);
                });
        return done.future();
    }

    /**
     * How long the gateway waits for the answer's head once the request is sent: {@code upstream-timeout}, or the
     * time left of a gRPC call's deadline ({@code grpc-timeout}, then not null) when that ends first.
     */
    private record HeadWait(long upstreamTimeoutMs, long deadlineNanos, String grpcTimeout) {

        long millis() {
            return grpcTimeout == null
                    ? upstreamTimeoutMs
                    : Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        }

        /** Whether the call's deadline, not {@code upstream-timeout}, bounds the wait (it is the shorter). */
        boolean byDeadline() {
            return grpcTimeout != null;
        }
    }

    private HeadWait headWait(String grpcTimeout) {
        long deadlineMs = GrpcDeadline.millis(grpcTimeout);
        if (deadlineMs < 0 || deadlineMs >= idleTimeoutMs) {
            return upstreamTimeout;
        }
        return new HeadWait(idleTimeoutMs, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMs), grpcTimeout);
    }

    private Future<HttpClientResponse> send(HttpServerRequest request, HttpClientRequest out,
            Upstreams.Upstream upstream, HeadWait wait, AnswerWatcher watcher) {
        HopByHop.copy(request.headers(), out.headers());
        if (HopByHop.acceptsTrailers(request.headers())) {
            out.putHeader("te", "trailers");
        }
        out.putHeader(HttpHeaders.HOST, upstream.authority());
        SocketAddress peer = request.remoteAddress();
        ForwardedHeaders.add(request, out.headers(), peer != null && clientAddress.isTrusted(peer.hostAddress()));
        watcher.request(out.headers());
        if (!hasBody(request)) {
            request.resume();
            out.idleTimeout(wait.millis());
            return out.send();
        }
        if (!request.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            out.setChunked(true);
        }
        // The backend's silence is timed from the end of the upload (a 50 MB body may take longer to send),
        // and only while no answer has come: a timer armed after the answer would later reset the pooled
        // connection under whichever request uses it then.
        Future<HttpClientResponse> response = out.response();
        if (awaitsContinue(request)) {
            // the client holds its body until asked: the gateway takes it now (as nginx does; Expect is not forwarded)
            request.response().writeContinue();
        }
        unendedOnFailure(request).to(out).onComplete(piped -> {
            if (piped.failed()) {
                // the client's body broke off: the backend must see a broken request, never a short one as whole
                out.exceptionHandler(QUIET); // the pipe took the handler and let it go
                out.reset(ClientReset.code(piped.cause()));
            } else if (!response.isComplete()) {
                out.idleTimeout(wait.millis());
            }
        });
        return response;
    }

    private void relay(HttpClientResponse in, HttpServerResponse response, Consumer<MultiMap> extraHeaders,
            Promise<Void> done, Loop loop, AnswerWatcher watcher, ClientReset clientReset) {
        watcher.head(in.statusCode(), in.headers());
        response.setStatusCode(in.statusCode());
        response.setStatusMessage(in.statusMessage());
        HopByHop.copy(in.headers(), response.headers());
        extraHeaders.accept(response.headers());
        if (!in.headers().contains(HttpHeaders.CONTENT_LENGTH) && mayHaveBody(in.statusCode())) {
            response.setChunked(true);
        }
        done.tryComplete();
        // the upstream's silence is timed until the head; from there the loop's stall watch times the body
        StallWatch.Watched body = loop == null ? null : loop.stalls().watch(in);
        ReadStream<Buffer> relayed = body == null ? in : body;
        boolean mayTrail = in.version() == HttpVersion.HTTP_2 || !in.headers().contains(HttpHeaders.CONTENT_LENGTH);
        WatchedBody watched = watcher != AnswerWatcher.NONE || mayTrail
                // trailers (gRPC's grpc-status among them) go out with the answer's end, to a client that can take
                // them: HTTP/2, or HTTP/1.1 chunked
                ? new WatchedBody(relayed, watcher == AnswerWatcher.NONE ? null : watcher::body,
                        mayTrail ? () -> endAsSent(in, response) : null)
                : null;
        relayed = watched == null ? relayed : watched;
        // a usage still to come is read even when the client leaves or takes nothing (RestReader)
        RestReader.Rest rest = watched != null && watcher.readsRest()
                ? rests.watch(watched, response, in, watcher::readingRest, whole -> ended(watcher, whole, loop, body))
                : null;
        if (response.closed()) {
            // the client left before the head (its stream reset, its connection gone): nothing is written to it, which
            // on HTTP/2 would reset its stream a second time; a watcher that wants the answer may still read it
            if (rest != null) {
                rest.readRest();
            } else {
                ended(watcher, false, loop, body);
                relayed.exceptionHandler(QUIET); // the reset fails the answer: the client's doing, no error
                in.request().reset(clientReset.code());
            }
            return;
        }
        unendedOnFailure(relayed).to(response).onComplete(piped -> {
            if (rest != null && (rest.reading() || piped.failed() && !watched.failed())) {
                response.reset(); // the client can take no more: the rest is read for the usage, which ends the exchange
                rest.readRest();
                return;
            }
            if (rest != null) {
                rest.stop();
            }
            ended(watcher, piped.succeeded(), loop, body);
            if (piped.failed()) {
                // the head is out: cut the client's connection so it sees a broken answer, never a short one as
                // whole, and the backend's, so it stops sending what nobody will read (as nginx does). An upstream
                // that reset its stream has the client's reset with its code (a gRPC client reads CANCEL,
                // INTERNAL_ERROR, ... as the server meant it), and is not reset in turn: its stream is over
                LOG.debugf("proxied answer broke off: %s", piped.cause().toString());
                boolean upstreamBroke = watched != null && watched.failed();
                if (!response.closed()) { // a stream the client or the server library reset already is reset once
                    response.reset(
                            upstreamBroke && piped.cause() instanceof StreamResetException reset ? reset.getCode() : 0);
                }
                if (!upstreamBroke) {
                    in.request().reset(clientReset.code());
                }
            }
        });
    }

    /**
     * Readies {@code response} to end as the upstream's answer ended, just before its end is written: with the
     * answer's trailers when it has some (gRPC's {@code grpc-status} among them), and without an empty trailers frame
     * when it has none. An answer that ended with its head, as gRPC's trailers-only answer does ({@code grpc-status} in
     * one HEADERS frame with END_STREAM), so goes out as one HEADERS frame with END_STREAM, and without the
     * {@code Content-Length: 0} Vert.x would add: the gateway adds no length the upstream did not send. (A gRPC
     * client reads a status from a head only when that head ends the stream.)
     */
    private static void endAsSent(HttpClientResponse in, HttpServerResponse response) {
        if (!response.headWritten() && !in.headers().contains(HttpHeaders.CONTENT_LENGTH)) {
            // this takes the place of Http2Answers' handler, which drops Connection: a relayed head has none (HopByHop)
            response.headersEndHandler(v -> response.headers().remove(HttpHeaders.CONTENT_LENGTH));
        }
        MultiMap trailers = in.trailers();
        if (!trailers.isEmpty()) {
            HopByHop.copy(trailers, response.trailers());
        }
    }

    /** The exchange is over: {@code watcher} is told, and the loop's stall watch lets go of the {@code body}. */
    private static void ended(AnswerWatcher watcher, boolean whole, Loop loop, StallWatch.Watched body) {
        if (body != null) {
            loop.stalls().done(body);
        }
        watcher.ended(whole);
    }

    /** A watcher told of the exchange's end once, however many ways it ends. */
    private static final class EndedOnce implements AnswerWatcher {

        private final AnswerWatcher watcher;
        private boolean ended;

        EndedOnce(AnswerWatcher watcher) {
            this.watcher = watcher;
        }

        @Override
        public void request(MultiMap headers) {
            watcher.request(headers);
        }

        @Override
        public void head(int status, MultiMap headers) {
            watcher.head(status, headers);
        }

        @Override
        public void body(Buffer chunk) {
            watcher.body(chunk);
        }

        @Override
        public boolean readsRest() {
            return !ended && watcher.readsRest();
        }

        @Override
        public void readingRest() {
            watcher.readingRest();
        }

        @Override
        public void ended(boolean whole) {
            if (!ended) {
                ended = true;
                watcher.ended(whole);
            }
        }
    }

    /**
     * A pipe that leaves its destination unended when either side fails. Vert.x's default ends it, which
     * delivers a body cut short as if it were whole (a chunked stream gets its last chunk) and, when the
     * write failed because the other side went away, makes the pipe's next step throw on the ended stream.
     */
    private static <T> Pipe<T> unendedOnFailure(ReadStream<T> source) {
        return source.pipe().endOnFailure(false);
    }

    private static UpstreamFailure failure(Throwable err, Upstreams.Upstream upstream, HeadWait wait) {
        if (err instanceof TimeoutException && wait.byDeadline()) {
            return new UpstreamFailure(504, "the call's deadline (grpc-timeout " + wait.grpcTimeout()
                    + ") passed before upstream " + upstream.authority() + " answered", err);
        }
        if (err instanceof TimeoutException) {
            return new UpstreamFailure(504, "upstream " + upstream.authority() + " did not answer in time", err);
        }
        if (err instanceof StreamResetException reset) {
            // an HTTP/2 upstream's reset, for a client that cannot be told one (HTTP/1.1)
            return new UpstreamFailure(502, "upstream " + upstream.authority() + " reset the request's stream (code "
                    + reset.getCode() + ")", err);
        }
        return new UpstreamFailure(502, "upstream " + upstream.authority() + " unreachable: " + err.getMessage(), err);
    }

    /**
     * Whether the client sent {@code Expect: 100-continue} and holds its body until a {@code 100 Continue}:
     * the gateway sends one when it forwards the request, and never when it answers itself.
     */
    public static boolean awaitsContinue(HttpServerRequest request) {
        return request.version() != HttpVersion.HTTP_1_0
                && "100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT));
    }

    private static boolean hasBody(HttpServerRequest request) {
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            return !length.equals("0");
        }
        if (request.version() == HttpVersion.HTTP_2) {
            // HTTP/2 frames the body without either header: stream it unless the method never carries one
            return !request.isEnded() && !BODILESS.contains(request.method());
        }
        return request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    }

    private static boolean mayHaveBody(int status) {
        return status >= 200 && status != 204 && status != 304;
    }

    @PreDestroy
    void close() {
        offLoop.close();
        byLoop.all().forEach(loop -> {
            loop.stalls().close();
            loop.clients().close();
        });
    }
}
