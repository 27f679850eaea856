package io.tollgate.rules.auth;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.tollgate.rules.config.RulesConfig;

/**
 * The console's sessions, in memory: each ends after {@code tollgate.console.idle-timeout} without use and
 * {@code max-age} after its login; at most {@code max-sessions} are held, a login beyond that ends the least
 * recently used. A restart ends them all, which only means logging in again.
 */
@ApplicationScoped
public class Sessions {

    private static final int SECRET_BYTES = 32;

    private final Map<String, Held> byId = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final Clock clock;
    private final Duration idleTimeout;
    private final Duration maxAge;
    private final int maxSessions;

    @Inject
    Sessions(Clock clock, RulesConfig config) {
        this(clock, config.console().idleTimeout(), config.console().maxAge(), config.console().maxSessions());
    }

    Sessions(Clock clock, Duration idleTimeout, Duration maxAge, int maxSessions) {
        this.clock = clock;
        this.idleTimeout = idleTimeout;
        this.maxAge = maxAge;
        this.maxSessions = maxSessions;
    }

    /** A new session of {@code actor}. */
    public Session open(String actor) {
        Instant now = clock.instant();
        Session session = new Session(secret(), actor, secret());
        synchronized (this) {
            if (byId.size() >= maxSessions) {
                byId.values().removeIf(held -> held.expired(now));
            }
            while (byId.size() >= maxSessions) {
                byId.values().stream().min(Comparator.comparing(Held::lastUsed)).ifPresent(oldest -> byId.remove(
                        oldest.session.id()));
            }
            byId.put(session.id(), new Held(session, now));
        }
        return session;
    }

    /** The live session of this id, which counts as a use of it; empty for an unknown or expired one. */
    public Optional<Session> find(String id) {
        Held held = id == null ? null : byId.get(id);
        if (held == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (held.expired(now)) {
            byId.remove(id, held);
            return Optional.empty();
        }
        held.lastUsed = now;
        return Optional.of(held.session);
    }

    /** Ends the session of this id, if there is one. */
    public void close(String id) {
        if (id != null) {
            byId.remove(id);
        }
    }

    /** How many sessions are held, expired ones not yet dropped included. */
    public int count() {
        return byId.size();
    }

    private String secret() {
        byte[] bytes = new byte[SECRET_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private final class Held {

        private final Session session;
        private final Instant opened;
        private volatile Instant lastUsed;

        Held(Session session, Instant now) {
            this.session = session;
            this.opened = now;
            this.lastUsed = now;
        }

        Instant lastUsed() {
            return lastUsed;
        }

        boolean expired(Instant now) {
            return !now.isBefore(lastUsed.plus(idleTimeout)) || !now.isBefore(opened.plus(maxAge));
        }
    }
}
