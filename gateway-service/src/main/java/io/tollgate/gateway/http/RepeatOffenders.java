package io.tollgate.gateway.http;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.tollgate.gateway.config.ConfigError;

/**
 * The peers whose connections were closed for flooding, and those of them under a penalty: more than
 * {@code maxCloses} such closes within {@code window} and the peer's connections are refused for {@code penalty}.
 * Memory is bounded by {@code maxPeers}: past it, peers with nothing left to remember are forgotten, and a new
 * peer's closes go uncounted until there is room. Safe from any event loop; the clock is an input.
 */
final class RepeatOffenders {

    static final String KEY = "tollgate.gateway.repeat-offenders.";

    private final int maxCloses;
    private final long windowNanos;
    private final long penaltyNanos;
    private final int maxPeers;
    private final LongSupplier nanoClock;
    private final Map<String, Peer> peers = new ConcurrentHashMap<>();

    RepeatOffenders(int maxCloses, Duration window, Duration penalty, int maxPeers, LongSupplier nanoClock) {
        if (maxCloses < 0) {
            throw ConfigError.of(KEY + "max-closes", maxCloses, "must be 0 or more");
        }
        if (window.isNegative() || window.isZero()) {
            throw ConfigError.of(KEY + "window", window, "must be positive");
        }
        if (penalty.isNegative() || penalty.isZero()) {
            throw ConfigError.of(KEY + "penalty", penalty, "must be positive");
        }
        if (maxPeers < 1) {
            throw ConfigError.of(KEY + "max-peers", maxPeers, "must be 1 or more");
        }
        this.maxCloses = maxCloses;
        this.windowNanos = window.toNanos();
        this.penaltyNanos = penalty.toNanos();
        this.maxPeers = maxPeers;
        this.nanoClock = nanoClock;
    }

    /** Whether {@code peer}'s connections are refused now. */
    boolean penalised(String peer) {
        Peer known = peers.get(peer);
        return known != null && known.penalisedAt(nanoClock.getAsLong());
    }

    /**
     * Counts a close of one of {@code peer}'s connections for flooding; true when this close starts its penalty (once
     * per penalty: closes during one do not extend it).
     */
    boolean closedForFlooding(String peer) {
        long now = nanoClock.getAsLong();
        Peer known = peers.get(peer);
        if (known == null) {
            if (peers.size() >= maxPeers) {
                forgetIdle(now);
                if (peers.size() >= maxPeers) {
                    return false;
                }
            }
            known = peers.computeIfAbsent(peer, p -> new Peer());
        }
        return known.closed(now);
    }

    /** How many peers are remembered. */
    int size() {
        return peers.size();
    }

    private void forgetIdle(long now) {
        peers.values().removeIf(peer -> peer.idleAt(now));
    }

    /** One peer's closes within the window, oldest first, and the end of its penalty. */
    private final class Peer {

        private final ArrayDeque<Long> closes = new ArrayDeque<>();
        private long penaltyEnds;
        private boolean penalty;

        synchronized boolean penalisedAt(long now) {
            return penalty && now - penaltyEnds < 0;
        }

        synchronized boolean closed(long now) {
            if (penalisedAt(now)) {
                return false;
            }
            while (!closes.isEmpty() && now - closes.peekFirst() >= windowNanos) {
                closes.pollFirst();
            }
            closes.addLast(now);
            if (closes.size() <= maxCloses) {
                return false;
            }
            closes.clear();
            penalty = true;
            penaltyEnds = now + penaltyNanos;
            return true;
        }

        synchronized boolean idleAt(long now) {
            return !penalisedAt(now) && (closes.isEmpty() || now - closes.peekLast() >= windowNanos);
        }
    }
}
