package io.tollgate.rules.live;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The live view of the fleet ({@code tollgate.live.*}): how often the gateways are read, and how far back. */
@ConfigMapping(prefix = "tollgate.live")
public interface LiveConfig {

    /** How often every live gateway's metrics and readiness are read: one step of the decisions series. */
    @WithDefault("10s")
    Duration step();

    /** How far back the decisions series go; older steps are dropped. */
    @WithDefault("15m")
    Duration window();

    /** How long one call to a gateway's management interface may take (connect, then each read). */
    @WithDefault("2s")
    Duration timeout();

    /**
     * Hosts a gateway's reported management address may name besides the address its poll came from (for a
     * gateway that the service reaches by a name, or through another network); none by default.
     */
    Optional<List<String>> allowedHosts();
}
