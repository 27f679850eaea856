package io.tollgate.gateway.proxy;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** How the gateway relays WebSocket connections (docs/websocket.md). */
@ConfigMapping(prefix = "tollgate.gateway.websocket")
public interface WebSocketConfig {

    /**
     * A relayed socket that carries no frame either way for this long is closed at both ends with 1001 (going
     * away) and its slots are given back; clients that ping keep theirs open. Ten minutes, as AWS API Gateway's
     * WebSocket APIs; {@code 0} closes none. The connection's own {@code quarkus.http.idle-timeout} no longer
     * applies once it upgraded.
     */
    @WithDefault("10m")
    Duration idleTimeout();
}
