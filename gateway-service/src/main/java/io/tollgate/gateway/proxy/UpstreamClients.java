package io.tollgate.gateway.proxy;

import java.util.concurrent.atomic.AtomicReferenceArray;

import io.tollgate.gateway.proxy.Upstreams.Protocol;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientBuilder;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;

/**
 * One owner's upstream clients, one per {@link Protocol}, each made when an upstream first needs it: a gateway
 * whose upstreams all speak HTTP/1.1 never builds an HTTP/2 client. A made client is found with one plain read; the
 * making is locked, for the off-loop owner that several threads share.
 * <p>
 * HTTP/1.1 keeps up to {@value #HTTP1_CONNECTIONS} keep-alive connections per upstream; HTTP/2 one connection per
 * upstream, its requests as streams over it (up to the upstream's {@code SETTINGS_MAX_CONCURRENT_STREAMS}).
 */
final class UpstreamClients {

    /** Keep-alive HTTP/1.1 connections per owner and upstream. */
    static final int HTTP1_CONNECTIONS = 200;

    private final Vertx vertx;
    private final UpstreamTls tls;
    private final AtomicReferenceArray<HttpClient> clients = new AtomicReferenceArray<>(Protocol.values().length);

    UpstreamClients(Vertx vertx, UpstreamTls tls) {
        this.vertx = vertx;
        this.tls = tls;
    }

    /** The client that speaks {@code protocol}, made on first use. */
    HttpClient of(Protocol protocol) {
        HttpClient client = clients.get(protocol.ordinal());
        return client != null ? client : make(protocol);
    }

    private synchronized HttpClient make(Protocol protocol) {
        HttpClient client = clients.get(protocol.ordinal());
        if (client == null) {
            HttpClientBuilder builder = vertx.httpClientBuilder().with(tls.apply(options(protocol)))
                    .with(new PoolOptions().setHttp1MaxSize(HTTP1_CONNECTIONS));
            if (protocol != Protocol.HTTP_1_1) {
                // a request's HEADERS and DATA frames, written while the client's connection is read: one flush
                builder.withConnectHandler(Flushes::gather);
            }
            client = builder.build();
            clients.set(protocol.ordinal(), client);
        }
        return client;
    }

    private static HttpClientOptions options(Protocol protocol) {
        // the client's body is the upstream's as sent: a compressed answer stays compressed
        HttpClientOptions options = new HttpClientOptions().setKeepAlive(true).setDecompressionSupported(false);
        return switch (protocol) {
            case HTTP_1_1 -> options;
            // prior knowledge: the connection opens with HTTP/2's preface, no HTTP/1.1 upgrade round trip
            case H2C -> options.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
            // ALPN offers h2 first; an upstream that only speaks HTTP/1.1 over TLS still answers
            case H2 -> options.setProtocolVersion(HttpVersion.HTTP_2).setSsl(true).setUseAlpn(true);
        };
    }

    synchronized void close() {
        for (int i = 0; i < clients.length(); i++) {
            HttpClient client = clients.getAndSet(i, null);
            if (client != null) {
                client.close();
            }
        }
    }
}
