package io.tollgate.rules.live;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.config.RulesConfig;

/**
 * The gateways that call this instance, by the {@code Tollgate-Gateway} id they send: when each was last seen,
 * the rules version it holds, and where its management interface is. How many were seen within
 * {@code tollgate.gateways.live-window} is the fleet's size; a gateway silent for
 * {@code tollgate.gateways.forget-after} is forgotten. In-process: behind a load balancer, each rules-service
 * instance knows only the gateways that polled IT (see the README); with one instance, or sticky polling, it
 * knows the fleet.
 */
@ApplicationScoped
public class GatewayRegistry {

    public static final int MAX_ID_LENGTH = 200;
    static final int MAX_URL_LENGTH = 200;
    /** The rules version of a gateway not yet answered a rule set. */
    public static final long UNKNOWN_VERSION = -1;

    /**
     * One gateway as last heard.
     *
     * @param rulesVersion
     * the version of the rule set it was last answered (200 or 304), {@link #UNKNOWN_VERSION} before
     * @param adminUrl
     * the base URL of its management interface, or null: taken only from a call with an accepted admin token
     * @param authorization
     * the {@code Authorization} header of that call, which the gateway accepts for its operations too; never shown
     */
    public record Gateway(String id, long lastSeenMs, long rulesVersion, String adminUrl, String authorization) {
    }

    private final Map<String, Gateway> byId = new ConcurrentHashMap<>();
    private final Clock clock;
    private final long windowMs;
    private final long forgetAfterMs;
    private final int maxTracked;

    GatewayRegistry(Clock clock, RulesConfig config, MeterRegistry meters) {
        this.clock = clock;
        this.windowMs = config.gateways().liveWindow().toMillis();
        this.forgetAfterMs = Math.max(windowMs, config.gateways().forgetAfter().toMillis());
        this.maxTracked = config.gateways().maxTracked();
        meters.gauge("tollgate.rules.gateways.live", this, GatewayRegistry::live);
    }

    /** Notes that gateway {@code id} asked just now; blank or over-long ids are ignored. */
    public void seen(String id) {
        seen(id, null, null);
    }

    /**
     * Notes that gateway {@code id} asked just now, and, when {@code trustedAdminUrl} is not null (the caller has
     * checked the call's admin token), that its management interface is there, reached with
     * {@code authorization}. An address that is not an absolute http(s) URL is ignored; the last good one stays.
     */
    public void seen(String id, String trustedAdminUrl, String authorization) {
        if (!acceptable(id)) {
            return;
        }
        long now = clock.millis();
        if (!byId.containsKey(id) && !roomFor(now)) {
            return; // bounded memory beats remembering a flood of made-up ids
        }
        String adminUrl = adminUrl(trustedAdminUrl);
        byId.compute(id, (key, old) -> {
            long version = old == null ? UNKNOWN_VERSION : old.rulesVersion();
            return adminUrl != null
                    ? new Gateway(key, now, version, adminUrl, authorization)
                    : new Gateway(key, now, version, old == null ? null : old.adminUrl(),
                            old == null ? null : old.authorization());
        });
    }

    /** Notes that gateway {@code id} was answered rule set {@code version} (as its ETag said). */
    public void holds(String id, long version) {
        if (acceptable(id) && version >= 0) {
            byId.computeIfPresent(id, (key, old) -> new Gateway(key, old.lastSeenMs(), version, old.adminUrl(),
                    old.authorization()));
        }
    }

    /** How many distinct gateways were seen within the live window. */
    public int live() {
        long now = clock.millis();
        int live = 0;
        for (Gateway g : byId.values()) {
            if (isLive(g, now)) {
                live++;
            }
        }
        return live;
    }

    /** Every gateway remembered, by id; those silent past {@code forget-after} are forgotten first. */
    public List<Gateway> all() {
        forgetSilent(clock.millis());
        return byId.values().stream().sorted(Comparator.comparing(Gateway::id)).toList();
    }

    /** The live gateways whose management address is known, by id: the ones the live view reads. */
    public List<Gateway> addressed() {
        long now = clock.millis();
        return all().stream().filter(g -> g.adminUrl() != null && isLive(g, now)).toList();
    }

    /** Whether {@code gateway} was seen within the live window. */
    public boolean isLive(Gateway gateway) {
        return isLive(gateway, clock.millis());
    }

    private boolean isLive(Gateway gateway, long now) {
        return now - gateway.lastSeenMs() <= windowMs;
    }

    private static boolean acceptable(String id) {
        return id != null && !id.isBlank() && id.length() <= MAX_ID_LENGTH;
    }

    /** Whether one more id fits: after forgetting the silent ones, and if need be the ones not live. */
    private boolean roomFor(long now) {
        if (byId.size() < maxTracked) {
            return true;
        }
        forgetSilent(now);
        if (byId.size() >= maxTracked) {
            byId.values().removeIf(g -> !isLive(g, now));
        }
        return byId.size() < maxTracked;
    }

    private void forgetSilent(long now) {
        byId.values().removeIf(g -> now - g.lastSeenMs() > forgetAfterMs);
    }

    /** {@code text} as an absolute http(s) base URL without a trailing slash, or null when it is not one. */
    static String adminUrl(String text) {
        if (text == null || text.isBlank() || text.length() > MAX_URL_LENGTH) {
            return null;
        }
        try {
            URI uri = new URI(text.trim());
            boolean http = "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
            if (!http || uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                return null;
            }
            String url = uri.toString();
            return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
