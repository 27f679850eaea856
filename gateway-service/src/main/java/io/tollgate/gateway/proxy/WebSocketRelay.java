package io.tollgate.gateway.proxy;

import java.net.URI;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.key.ClientAddress;
import io.tollgate.rules.domain.CanonicalPath;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Relays a WebSocket upgrade that its check allowed: opens the upstream's socket first, on the path and query the
 * HTTP proxy would send, with the same forwarded headers and the client's offered subprotocols; only once the
 * upstream accepted is the client's request upgraded, to the subprotocol the upstream chose. An upstream that
 * refuses the handshake, cannot be reached or does not answer in time fails the returned future with an
 * {@link UpstreamFailure} (its status, 502 or 504) and the client's connection never upgrades. From there
 * {@link RelayedSocket} carries the frames.
 */
@ApplicationScoped
public class WebSocketRelay {

    private static final Logger LOG = Logger.getLogger(WebSocketRelay.class);
    /** Headers of the client's handshake that belong to its own hop: the gateway's handshake makes its own. */
    private static final String[] HANDSHAKE = {"Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions",
            "Sec-WebSocket-Protocol", "Content-Length"};
    private static final String PROTOCOL = "Sec-WebSocket-Protocol";
    private static final String KEY = "Sec-WebSocket-Key";
    /** The header that names the protocol version a handshake speaks; the gateway speaks {@link #VERSION}. */
    public static final String VERSION_HEADER = "Sec-WebSocket-Version";
    /** The only version of RFC 6455, the one every browser and the gateway's own handshake to the upstream speak. */
    public static final String VERSION = "13";
    /** A key is the base64 of a 16-byte nonce: 24 characters, the last two {@code ==}. */
    private static final int NONCE_BYTES = 16;
    private static final int KEY_LENGTH = 24;

    private final Vertx vertx;
    private final ClientAddress clientAddress;
    private final Upstreams upstreams;
    private final WebSocketClient client;
    private final long connectTimeoutMs;
    private final long handshakeTimeoutMs;
    private final WebSocketConfig webSockets;
    private final Set<RelayedSocket> open = ConcurrentHashMap.newKeySet();
    private final Counter relayed;

    WebSocketRelay(Vertx vertx, GatewayConfig config, WebSocketConfig webSockets, ClientAddress clientAddress,
            UpstreamTls tls, MeterRegistry registry) {
        this.vertx = vertx;
        this.clientAddress = clientAddress;
        this.upstreams = new Upstreams(config.gateway());
        this.connectTimeoutMs = config.gateway().connectTimeout().toMillis();
        this.handshakeTimeoutMs = config.gateway().upstreamTimeout().toMillis();
        this.webSockets = webSockets;
        // one socket per connection, and as many as clients open: no pool bound of Vert.x's (50 by default) queues them
        this.client = vertx.createWebSocketClient(tls.apply(WebSocketLimits.apply(webSockets, new WebSocketClientOptions()
                .setMaxConnections(Integer.MAX_VALUE).setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeoutMs)))));
        Gauge.builder("tollgate.websockets.open", open, Set::size)
                .description("WebSocket connections this gateway relays now").register(registry);
        this.relayed = Counter.builder("tollgate.websockets.relayed")
                .description("WebSocket connections relayed since start (upstream and client both upgraded)")
                .register(registry);
    }

    /** Whether {@code request} asks to become a WebSocket (RFC 6455 §4.1: an HTTP/1.1 GET with Upgrade: websocket). */
    public static boolean isUpgrade(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET || request.version() != HttpVersion.HTTP_1_1) {
            return false; // most requests: no header read on the proxy's path
        }
        String upgrade = request.getHeader(HttpHeaders.UPGRADE);
        String connection = request.getHeader(HttpHeaders.CONNECTION);
        return upgrade != null && upgrade.trim().equalsIgnoreCase("websocket")
                && connection != null && HopByHop.listed(connection, "upgrade");
    }

    /**
     * Why the upgrade {@code request} ({@link #isUpgrade}) is not an RFC 6455 handshake, or null when it is (§4.2.1:
     * one {@code Sec-WebSocket-Key}, the base64 of a 16-byte nonce, and {@code Sec-WebSocket-Version} 13). Checked
     * before the upstream is opened: the gateway's handshake to the upstream makes a key of its own, so without this a
     * request that no WebSocket server takes would open an upstream socket before the client's upgrade failed.
     */
    public static String badHandshake(HttpServerRequest request) {
        List<String> keys = request.headers().getAll(KEY);
        if (keys.size() != 1) {
            return keys.isEmpty() ? "no " + KEY : KEY + " is sent more than once";
        }
        if (!isNonce(keys.get(0).trim())) {
            return KEY + " is not the base64 of 16 bytes";
        }
        List<String> versions = request.headers().getAll(VERSION_HEADER);
        if (versions.size() != 1 || !versions.get(0).trim().equals(VERSION)) {
            return VERSION_HEADER + " is not " + VERSION;
        }
        return null;
    }

    private static boolean isNonce(String key) {
        if (key.length() != KEY_LENGTH) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(key).length == NONCE_BYTES;
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /**
     * Relays the upgrade {@code request} (paused by the caller) as {@code path} to the upstream of its path, or to
     * {@code target} when not null; {@code extraHeaders} adds headers to the client's 101, {@code watcher} sees the
     * socket's end. Completes once the upstream accepted; fails with an {@link UpstreamFailure} before that.
     */
    public Future<Void> relay(HttpServerRequest request, CanonicalPath path, Consumer<MultiMap> extraHeaders,
            URI target, AnswerWatcher watcher) {
        Upstreams.Upstream upstream = target == null
                ? upstreams.forPath(path.matchPath())
                : Upstreams.Upstream.of("warm-up target", target);
        String query = request.query();
        WebSocketConnectOptions options = new WebSocketConnectOptions()
                .setHost(upstream.host())
                .setPort(upstream.port())
                .setSsl(upstream.ssl())
                .setURI(upstream.basePath() + (query == null ? path.path() : path.path() + "?" + query))
                .setConnectTimeout(connectTimeoutMs)
                .setTimeout(handshakeTimeoutMs)
                .setAllowOriginHeader(false) // the client's Origin passes as sent; none is made up
                .setHeaders(upstreamHeaders(request, upstream));
        List<String> offered = offered(request);
        if (!offered.isEmpty()) {
            options.setSubProtocols(offered);
        }
        watcher.request(options.getHeaders());
        return client.connect(options)
                .recover(err -> {
                    watcher.ended(false);
                    return Future.failedFuture(failure(err, upstream));
                })
                .map(socket -> {
                    upgradeClient(request, socket, extraHeaders, watcher);
                    return null;
                });
    }

    private void upgradeClient(HttpServerRequest request, WebSocket upstream, Consumer<MultiMap> extraHeaders,
            AnswerWatcher watcher) {
        // the client is offered what the upstream chose, and nothing else (WebSocketSubProtocols)
        request.headers().remove(PROTOCOL);
        String chosen = upstream.subProtocol();
        if (chosen != null && !chosen.isEmpty()) {
            request.headers().set(PROTOCOL, chosen);
        }
        extraHeaders.accept(request.response().headers());
        watcher.head(101, upstream.headers());
        upstream.pause(); // frames the upstream sends at once wait for the client's socket
        SocketSide upstreamSide = SocketSide.upstream(upstream); // and so does its close
        request.toWebSocket().onComplete(upgraded -> {
            if (upgraded.failed()) {
                LOG.debugf("client's upgrade failed after the upstream's: %s", upgraded.cause().toString());
                watcher.ended(false);
                upstream.close(RelayedClose.GOING_AWAY, "client handshake failed");
                return;
            }
            ServerWebSocket socket = upgraded.result();
            dropConnectionIdleTimeout(request);
            RelayedSocket[] relay = new RelayedSocket[1];
            relay[0] = new RelayedSocket(vertx, webSockets, SocketSide.client(socket, request.connection()), upstreamSide,
                    watcher,
                    () -> open.remove(relay[0]));
            open.add(relay[0]);
            relayed.increment();
            relay[0].start();
            upstream.resume();
        });
    }

    /**
     * The client connection's {@code quarkus.http.idle-timeout} would cut a socket that is quiet for a minute: from
     * the upgrade on, the relay's own idle timeout governs. Vert.x 4 offers no public way to change it on an upgraded
     * connection, so the connection's idle handler is taken out of its pipeline.
     */
    private static void dropConnectionIdleTimeout(HttpServerRequest request) {
        if (request.connection() instanceof ConnectionBase connection
                && connection.channel().pipeline().get("idle") != null) {
            connection.channel().pipeline().remove("idle");
        }
    }

    private static List<String> offered(HttpServerRequest request) {
        List<String> protocols = new ArrayList<>(2);
        for (String line : request.headers().getAll(PROTOCOL)) {
            for (String protocol : line.split(",")) {
                if (!protocol.isBlank()) {
                    protocols.add(protocol.trim());
                }
            }
        }
        return protocols;
    }

    private MultiMap upstreamHeaders(HttpServerRequest request, Upstreams.Upstream upstream) {
        MultiMap out = MultiMap.caseInsensitiveMultiMap();
        HopByHop.copy(request.headers(), out);
        for (String name : HANDSHAKE) {
            out.remove(name);
        }
        out.set(HttpHeaders.HOST, upstream.authority());
        SocketAddress peer = request.remoteAddress();
        ForwardedHeaders.add(request, out, peer != null && clientAddress.isTrusted(peer.hostAddress()));
        return out;
    }

    private static UpstreamFailure failure(Throwable err, Upstreams.Upstream upstream) {
        if (err instanceof UpgradeRejectedException refused && refused.getStatus() >= 400) {
            return new UpstreamFailure(refused.getStatus(), "upstream " + upstream.authority()
                    + " refused the WebSocket handshake with " + refused.getStatus(), err);
        }
        if (err instanceof TimeoutException) {
            return new UpstreamFailure(504, "upstream " + upstream.authority() + " did not answer in time", err);
        }
        return new UpstreamFailure(502, "upstream " + upstream.authority() + " unreachable: " + err.getMessage(), err);
    }

    /** The gateway stops: every relayed socket is closed at both ends with 1001, its slots given back. */
    void stop(@Observes @Priority(1) ShutdownEvent stopping) {
        goAwayAll("gateway stopping");
        client.close();
    }

    /** Closes every relayed socket at both ends with 1001 and {@code reason}, waiting (bounded) for the closes. */
    void goAwayAll(String reason) {
        List<Future<Void>> closing = new ArrayList<>(open.size());
        for (RelayedSocket socket : List.copyOf(open)) {
            closing.add(socket.goAwayFromElsewhere(reason));
        }
        try {
            // the close frames go out before the server stops; bounded, as a stopping gateway must not hang
            Future.join(closing).toCompletionStage().toCompletableFuture().get(2, TimeUnit.SECONDS);
        } catch (Exception notAll) {
            LOG.debugf("not every WebSocket was closed in time: %s", notAll.toString());
        }
    }

    /** How many sockets this gateway relays now. */
    int openSockets() {
        return open.size();
    }
}
