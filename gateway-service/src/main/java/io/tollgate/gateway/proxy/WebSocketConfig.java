package io.tollgate.gateway.proxy;

import java.time.Duration;

import io.quarkus.runtime.configuration.MemorySize;
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

    /**
     * The largest frame the gateway reads from a client or an upstream (at most {@code 2G}); a frame is held whole
     * in memory before it is relayed, so this bounds what one socket costs. A longer one closes the socket at both
     * ends with 1009 (message too big). 16 MiB: a file-sized message fits in one frame.
     */
    @WithDefault("16M")
    MemorySize maxFrameSize();

    /**
     * The largest message, all its fragments together, relayed either way; a longer one closes the socket at both
     * ends with 1009 (message too big). The gateway relays a message frame by frame and never holds it whole.
     */
    @WithDefault("64M")
    MemorySize maxMessageSize();

    /**
     * How long the gateway waits for the other side's close once it relayed one side's close (or sent its own):
     * then it answers a waiting side with 1001 and closes both connections.
     */
    @WithDefault("10s")
    Duration closeTimeout();
}
