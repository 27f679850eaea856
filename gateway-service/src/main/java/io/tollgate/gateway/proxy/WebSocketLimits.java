package io.tollgate.gateway.proxy;

import jakarta.inject.Singleton;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocketClientOptions;

/**
 * The frame size limit of {@link WebSocketConfig} on both sides of a relayed socket: the public port's decoder of
 * client frames, and the WebSocket client's decoder of upstream frames (Vert.x's default, 64 KiB, would refuse any
 * longer frame). The message limit is the relay's own ({@link RelayedSocket}), since it never joins fragments.
 */
@Singleton
class WebSocketLimits implements HttpServerOptionsCustomizer {

    private final int maxFrameBytes;

    WebSocketLimits(WebSocketConfig config) {
        this.maxFrameBytes = maxFrameBytes(config);
    }

    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setMaxWebSocketFrameSize(maxFrameBytes);
    }

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        options.setMaxWebSocketFrameSize(maxFrameBytes);
    }

    /** {@code options} reading upstream frames up to the limit. */
    static WebSocketClientOptions apply(WebSocketConfig config, WebSocketClientOptions options) {
        return options.setMaxFrameSize(maxFrameBytes(config));
    }

    private static int maxFrameBytes(WebSocketConfig config) {
        long bytes = config.maxFrameSize().asLongValue();
        if (bytes < 1 || bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tollgate.gateway.websocket.max-frame-size must be from 1 byte to 2G, not "
                    + bytes + " bytes");
        }
        return (int) bytes;
    }
}
