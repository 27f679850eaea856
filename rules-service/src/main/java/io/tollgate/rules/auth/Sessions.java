package io.tollgate.rules.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The console's sessions, in PostgreSQL ({@code console_sessions}), so that a login made through one instance
 * works through every other: each ends after {@code tollgate.console.idle-timeout} without use and
 * {@code max-age} after its login; at most {@code max-sessions} are held, a login beyond that ends the least
 * recently used. The table holds the SHA-256 of each id, never the id.
 * <p>
 * A request's session is read once, at the edge ({@link SessionEdge}, asynchronously), which also counts as a
 * use; {@link #find} then answers from what that read found, without I/O, wherever the request is served.
 */
@ApplicationScoped
public class Sessions {

    private static final int SECRET_BYTES = 32;

    private final Pool pool;
    private final SecureRandom random = new SecureRandom();
    private final Clock clock;
    private final Duration idleTimeout;
    private final Duration maxAge;
    private final int maxSessions;
    /** What the edge read found, by id: the hand-over to {@link #find}; re-read on every request. */
    private final Map<String, Held> loaded = new ConcurrentHashMap<>();

    @Inject
    Sessions(Pool pool, Clock clock, RulesConfig config) {
        this(pool, clock, config.console().idleTimeout(), config.console().maxAge(), config.console().maxSessions());
    }

    Sessions(Pool pool, Clock clock, Duration idleTimeout, Duration maxAge, int maxSessions) {
        this.pool = pool;
        this.clock = clock;
        this.idleTimeout = idleTimeout;
        this.maxAge = maxAge;
        this.maxSessions = maxSessions;
    }

    /** A new session of {@code actor}, stored; the expired and, beyond the bound, least recently used end. */
    public Uni<Session> open(String actor) {
        Instant now = clock.instant();
        Session session = new Session(secret(), actor, secret());
        return pool.preparedQuery("""
                INSERT INTO console_sessions (id_digest, actor, csrf_token, opened_at, used_at)
                VALUES ($1, $2, $3, $4, $4)""")
                .execute(Tuple.of(digest(session.id()), actor, session.csrfToken(), at(now)))
                .chain(() -> pool.preparedQuery("""
                        DELETE FROM console_sessions
                        WHERE used_at <= $1 OR opened_at <= $2 OR id_digest IN (
                            SELECT id_digest FROM console_sessions ORDER BY used_at DESC, id_digest OFFSET $3)""")
                        .execute(Tuple.of(at(now.minus(idleTimeout)), at(now.minus(maxAge)), maxSessions)))
                .replaceWith(session);
    }

    /**
     * Reads the live session of this id from the table, counting it as a use, and keeps it for {@link #find};
     * empty for an unknown or expired one.
     */
    public Uni<Optional<Session>> load(String id) {
        Instant now = clock.instant();
        return pool.preparedQuery("""
                UPDATE console_sessions SET used_at = $2
                WHERE id_digest = $1 AND used_at > $3 AND opened_at > $4
                RETURNING actor, csrf_token, opened_at""")
                .execute(Tuple.of(digest(id), at(now), at(now.minus(idleTimeout)), at(now.minus(maxAge))))
                .map(rows -> {
                    if (rows.size() == 0) {
                        loaded.remove(id);
                        return Optional.<Session>empty();
                    }
                    Row row = rows.iterator().next();
                    Session session = new Session(id, row.getString("actor"), row.getString("csrf_token"));
                    keep(id, new Held(session, row.getOffsetDateTime("opened_at").toInstant(), now));
                    return Optional.of(session);
                })
                .onFailure().invoke(() -> loaded.remove(id));
    }

    /**
     * The live session of this id as the edge read it for the request being served; empty for an unknown or
     * expired one. Never does I/O: it may run on an event loop.
     */
    public Optional<Session> find(String id) {
        Held held = id == null ? null : loaded.get(id);
        if (held == null) {
            return Optional.empty();
        }
        if (held.expired(clock.instant())) {
            loaded.remove(id, held);
            return Optional.empty();
        }
        return Optional.of(held.session);
    }

    /** Ends the session of this id, on every instance, if there is one. */
    public Uni<Void> close(String id) {
        if (id == null) {
            return Uni.createFrom().voidItem();
        }
        loaded.remove(id);
        return pool.preparedQuery("DELETE FROM console_sessions WHERE id_digest = $1")
                .execute(Tuple.of(digest(id)))
                .replaceWithVoid();
    }

    private void keep(String id, Held held) {
        if (loaded.size() >= maxSessions) {
            // every request re-reads its session: dropping what is held here costs a read, never a login
            Instant now = clock.instant();
            loaded.values().removeIf(h -> h.expired(now));
            if (loaded.size() >= maxSessions) {
                loaded.clear();
            }
        }
        loaded.put(id, held);
    }

    private String secret() {
        byte[] bytes = new byte[SECRET_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The SHA-256 of a session id: what the table is keyed by. */
    static Buffer digest(String id) {
        try {
            return Buffer.buffer(MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private final class Held {

        private final Session session;
        private final Instant opened;
        private final Instant used;

        Held(Session session, Instant opened, Instant used) {
            this.session = session;
            this.opened = opened;
            this.used = used;
        }

        boolean expired(Instant now) {
            return !now.isBefore(used.plus(idleTimeout)) || !now.isBefore(opened.plus(maxAge));
        }
    }
}
