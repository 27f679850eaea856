package io.tollgate.rules.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.tollgate.rules.FreshDatabase;
import io.tollgate.rules.TestClock;
import io.vertx.mutiny.sqlclient.Pool;

/**
 * The session store on real PostgreSQL, on a clock the test moves: expiry and bound, and two stores on one
 * database (two instances) knowing the same sessions. The table keeps no session id.
 */
class SessionsTest {

    private static FreshDatabase database;
    private static Pool pool;

    private final TestClock clock = new TestClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final Sessions sessions = new Sessions(pool, clock, Duration.ofMinutes(30), Duration.ofHours(12), 3);
    private final Sessions other = new Sessions(pool, clock, Duration.ofMinutes(30), Duration.ofHours(12), 3);

    @BeforeAll
    static void database() {
        database = new FreshDatabase();
        pool = database.pool();
    }

    @BeforeEach
    void empty() {
        pool.query("DELETE FROM console_sessions").execute().await().indefinitely();
    }

    @AfterAll
    static void drop() {
        database.close();
    }

    @Test
    void aSessionHasRandomIdAndCsrfTokenOf256BitsAndOnlyItsDigestIsStored() {
        Session one = open(sessions, "admin");
        Session two = open(sessions, "admin");
        assertThat(one.id()).hasSize(43).isNotEqualTo(two.id()).isNotEqualTo(one.csrfToken());
        assertThat(one.csrfToken()).hasSize(43).isNotEqualTo(two.csrfToken());
        assertThat(one.csrfMatches(one.csrfToken())).isTrue();
        assertThat(one.csrfMatches(two.csrfToken())).isFalse();
        assertThat(one.csrfMatches(null)).isFalse();
        assertThat(one.toString()).doesNotContain(one.id()).doesNotContain(one.csrfToken());
        String stored = pool.query("SELECT string_agg(encode(id_digest, 'base64'), ',') AS r FROM console_sessions")
                .execute().await().indefinitely().iterator().next().getString("r");
        assertThat(stored).doesNotContain(one.id()).doesNotContain(two.id());
    }

    @Test
    void aSessionOpenedOnOneInstanceIsFoundOnAnotherAndEndsOnBoth() {
        Session session = open(sessions, "alice");
        assertThat(other.find(session.id())).as("nothing read yet").isEmpty();
        assertThat(load(other, session.id())).contains(session);
        assertThat(other.find(session.id())).contains(session);

        other.close(session.id()).await().indefinitely();
        assertThat(load(sessions, session.id())).isEmpty();
        assertThat(sessions.find(session.id())).isEmpty();
    }

    @Test
    void useOnAnyInstanceKeepsASessionAliveUntilItsIdleTimeout() {
        Session session = open(sessions, "alice");
        clock.advance(Duration.ofMinutes(29));
        assertThat(load(other, session.id())).contains(session);
        clock.advance(Duration.ofMinutes(29));
        assertThat(load(sessions, session.id())).contains(session);
        clock.advance(Duration.ofMinutes(30));
        assertThat(load(other, session.id())).isEmpty();
        assertThat(sessions.find(session.id())).as("the local reading expires by itself").isEmpty();
    }

    @Test
    void evenABusySessionEndsAtItsMaxAge() {
        Session session = open(sessions, "alice");
        for (int i = 0; i < 12 * 4 - 1; i++) {
            clock.advance(Duration.ofMinutes(15));
            assertThat(load(i % 2 == 0 ? sessions : other, session.id())).as("after %d minutes", (i + 1) * 15)
                    .contains(session);
        }
        clock.advance(Duration.ofMinutes(15));
        assertThat(load(sessions, session.id())).isEmpty();
    }

    @Test
    void aLoginBeyondTheBoundEndsTheLeastRecentlyUsedSession() {
        Session first = open(sessions, "a");
        clock.advance(Duration.ofSeconds(1));
        Session second = open(other, "b");
        clock.advance(Duration.ofSeconds(1));
        Session third = open(sessions, "c");
        clock.advance(Duration.ofSeconds(1));
        load(other, first.id());
        clock.advance(Duration.ofSeconds(1));
        Session fourth = open(other, "d");

        assertThat(load(sessions, second.id())).isEmpty();
        assertThat(load(sessions, first.id())).contains(first);
        assertThat(load(sessions, third.id())).contains(third);
        assertThat(load(sessions, fourth.id())).contains(fourth);
    }

    @Test
    void closeEndsASessionAndUnknownIdsFindNothing() {
        Session session = open(sessions, "a");
        sessions.close(session.id()).await().indefinitely();
        assertThat(load(sessions, session.id())).isEmpty();
        assertThat(load(sessions, "nope")).isEmpty();
        assertThat(sessions.find("nope")).isEmpty();
        assertThat(sessions.find(null)).isEmpty();
    }

    private static Session open(Sessions store, String actor) {
        return store.open(actor).await().indefinitely();
    }

    private static Optional<Session> load(Sessions store, String id) {
        return store.load(id).await().indefinitely();
    }
}
