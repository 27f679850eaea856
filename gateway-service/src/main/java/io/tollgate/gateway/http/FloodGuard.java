package io.tollgate.gateway.http;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.http.Refusals.Reason;
import io.tollgate.gateway.key.ClientAddress;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Makes a repeat offender cheap: a peer whose HTTP/2 connections Netty closes for flooding ({@code GOAWAY
 * ENHANCE_YOUR_CALM}: rapid reset, a flood of small CONTINUATION, empty DATA or control frames; or a header block past
 * its bound) more than {@code repeat-offenders.max-closes} times in the window has its next connections closed at their
 * first request, unserved and unchecked, for the penalty ({@link RepeatOffenders}), each counted in
 * {@code tollgate_refused_total{reason="repeat-offender"}}, and one WARN line per penalty.
 * <p>
 * The first request is the earliest point Quarkus hands the gateway a connection: Vert.x 4 calls a server's
 * connection handler only when Quarkus sets it (for {@code quarkus.http.limits.max-connections}), and Quarkus exposes
 * neither it nor the channel's pipeline before that. So a connection that floods before its first request ends (a
 * header block that never ends) is neither seen nor refused here: Netty's bounds alone cut it.
 */
@ApplicationScoped
class FloodGuard {

    private static final Logger LOG = Logger.getLogger(FloodGuard.class);

    /*
     * What the guard decided about a connection at its first request, kept on its channel. The values are JDK strings,
     * compared by identity (literals are interned), not a type of the application's class loader: a connection
     * outlives a dev-mode reload, and a value of the old loader's type would not cast to the new one's.
     */
    private static final String SERVED = "served";
    private static final String REFUSED = "refused";
    private static final String OFFENDED = "offended";

    private static final AttributeKey<String> SEEN = AttributeKey.valueOf("tollgate.flood-guard");

    private final GatewayConfig.RepeatOffenders config;
    private final ClientAddress addresses;
    private final Refusals refusals;
    private final RepeatOffenders offenders;

    FloodGuard(GatewayConfig config, ClientAddress addresses, Refusals refusals) {
        this.config = config.gateway().repeatOffenders();
        this.addresses = addresses;
        this.refusals = refusals;
        this.offenders = new RepeatOffenders(this.config.maxCloses(), this.config.window(), this.config.penalty(),
                this.config.maxPeers(), System::nanoTime);
    }

    void register(@Observes Router router) {
        if (config.enabled()) {
            router.route().order(Integer.MIN_VALUE).handler(this::firstRequest);
        }
    }

    /**
     * On a connection's first request: a penalised peer's connection is closed at once; any other HTTP/2 connection
     * reports a close for flooding. Later requests of the connection cost one attribute read.
     */
    private void firstRequest(RoutingContext ctx) {
        HttpConnection connection = ctx.request().connection();
        if (!(connection instanceof ConnectionBase base)) {
            ctx.next();
            return;
        }
        Attribute<String> seen = base.channel().attr(SEEN);
        String before = seen.get();
        if (before == REFUSED) {
            connection.close(); // a request read in the same batch as the refused one
            return;
        }
        if (before != null) {
            ctx.next();
            return;
        }
        String peer = addresses.key(connection.remoteAddress().hostAddress());
        if (addresses.isTrusted(connection.remoteAddress().hostAddress())) {
            seen.set(SERVED);
            ctx.next();
            return;
        }
        if (offenders.penalised(peer)) {
            seen.set(REFUSED);
            refusals.countConnection(Reason.REPEAT_OFFENDER);
            connection.close();
            return;
        }
        seen.set(SERVED);
        if (ctx.request().version() == HttpVersion.HTTP_2) {
            connection.exceptionHandler(err -> closedWith(base, peer, err));
        }
        ctx.next();
    }

    /**
     * Counts the connection's close for flooding, once. Any other error a client's connection ends with is the client's,
     * logged at debug.
     */
    private void closedWith(ConnectionBase connection, String peer, Throwable err) {
        if (!isFlood(err)) {
            LOG.debugf("connection of %s: %s", peer, err.getMessage());
            return;
        }
        Attribute<String> seen = connection.channel().attr(SEEN);
        if (!seen.compareAndSet(SERVED, OFFENDED) || !offenders.closedForFlooding(peer)) {
            return;
        }
        LOG.warnf("%s had more than %d connections closed for flooding (%s) within %s: its connections are refused for"
                + " %s; tollgate_refused_total{reason=\"repeat-offender\"} counts them", peer, config.maxCloses(),
                err.getMessage(), human(config.window()), human(config.penalty()));
    }

    /**
     * Netty's connection errors for floods: ENHANCE_YOUR_CALM (resets, small CONTINUATION frames, empty DATA frames,
     * control frames past their bounds), and a header block past 1.25 times the header list bound, which it tells
     * only by its message.
     */
    static boolean isFlood(Throwable err) {
        if (!(err instanceof Http2Exception h2)) {
            return false;
        }
        return h2.error() == Http2Error.ENHANCE_YOUR_CALM || h2.error() == Http2Error.PROTOCOL_ERROR
                && h2.getMessage() != null && h2.getMessage().startsWith("Header size exceeded");
    }

    private static String human(Duration duration) {
        return duration.toString().substring(2).toLowerCase();
    }
}
