package io.tollgate.rules.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.TestClock;

/** The session store's expiry and bound, on a clock the test moves. */
class SessionsTest {

    private final TestClock clock = new TestClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final Sessions sessions = new Sessions(clock, Duration.ofMinutes(30), Duration.ofHours(12), 3);

    @Test
    void aSessionHasRandomIdAndCsrfTokenOf256Bits() {
        Session one = sessions.open("admin");
        Session two = sessions.open("admin");
        assertThat(one.id()).hasSize(43).isNotEqualTo(two.id()).isNotEqualTo(one.csrfToken());
        assertThat(one.csrfToken()).hasSize(43).isNotEqualTo(two.csrfToken());
        assertThat(one.csrfMatches(one.csrfToken())).isTrue();
        assertThat(one.csrfMatches(two.csrfToken())).isFalse();
        assertThat(one.csrfMatches(null)).isFalse();
        assertThat(one.toString()).doesNotContain(one.id()).doesNotContain(one.csrfToken());
    }

    @Test
    void useKeepsASessionAliveUntilItsIdleTimeout() {
        Session session = sessions.open("alice");
        clock.advance(Duration.ofMinutes(29));
        assertThat(sessions.find(session.id())).contains(session);
        clock.advance(Duration.ofMinutes(29));
        assertThat(sessions.find(session.id())).contains(session);
        clock.advance(Duration.ofMinutes(30));
        assertThat(sessions.find(session.id())).isEmpty();
        assertThat(sessions.count()).isZero();
    }

    @Test
    void evenABusySessionEndsAtItsMaxAge() {
        Session session = sessions.open("alice");
        for (int i = 0; i < 12 * 4 - 1; i++) {
            clock.advance(Duration.ofMinutes(15));
            assertThat(sessions.find(session.id())).as("after %d minutes", (i + 1) * 15).contains(session);
        }
        clock.advance(Duration.ofMinutes(15));
        assertThat(sessions.find(session.id())).isEmpty();
    }

    @Test
    void aLoginBeyondTheBoundEndsTheLeastRecentlyUsedSession() {
        Session first = sessions.open("a");
        clock.advance(Duration.ofSeconds(1));
        Session second = sessions.open("b");
        clock.advance(Duration.ofSeconds(1));
        Session third = sessions.open("c");
        clock.advance(Duration.ofSeconds(1));
        sessions.find(first.id());
        clock.advance(Duration.ofSeconds(1));
        Session fourth = sessions.open("d");

        assertThat(sessions.count()).isEqualTo(3);
        assertThat(sessions.find(second.id())).isEmpty();
        assertThat(sessions.find(first.id())).contains(first);
        assertThat(sessions.find(third.id())).contains(third);
        assertThat(sessions.find(fourth.id())).contains(fourth);
    }

    @Test
    void closeEndsASessionAndUnknownIdsFindNothing() {
        Session session = sessions.open("a");
        sessions.close(session.id());
        assertThat(sessions.find(session.id())).isEmpty();
        assertThat(sessions.find("nope")).isEmpty();
        assertThat(sessions.find(null)).isEmpty();
    }
}
