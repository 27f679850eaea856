package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class AdminTokenCheckTest {

    private final AtomicLong nowMicros = new AtomicLong(1_800_000_000_000_000L);
    private final AdminTokenCheck tokens = new AdminTokenCheck(
            Map.of("admin", admin("right-token"), "alice", new AdminTokenCheck.Token("alices", Scope.READ)), 3,
            Duration.ofMinutes(1), nowMicros::get);

    @Test
    void aRightTokenNamesItsActorAndCostsNothing() {
        for (int i = 0; i < 10; i++) {
            assertThat(tokens.check("right-token", "10.0.0.1").actor()).isEqualTo("admin");
        }
        assertThat(tokens.check("alices", "10.0.0.1").actor()).isEqualTo("alice");
        assertThat(tokens.check("alices", "10.0.0.1").scope()).isEqualTo(Scope.READ);
        assertThat(tokens.check("right-token", "10.0.0.1").scope()).isEqualTo(Scope.ADMIN);
        assertThat(tokens.check("wrong", "10.0.0.1").accepted()).isFalse();
        assertThat(tokens.check("", "10.0.0.1").accepted()).isFalse();
        assertThat(tokens.check(null, "10.0.0.1").accepted()).isFalse();
    }

    @Test
    void anAddressThatGuessedWrongTooOftenHasItsWrongTokensThrottledUntilItsBucketRefills() {
        AdminTokenCheck.Verdict first = tokens.check("guess-1", "10.0.0.2");
        assertThat(first.throttled()).isFalse();
        assertThat(first.justThrottled()).isFalse();
        tokens.check("guess-2", "10.0.0.2");
        assertThat(tokens.check("guess-3", "10.0.0.2").justThrottled()).as("the third wrong token spends the last")
                .isTrue();

        AdminTokenCheck.Verdict refused = tokens.check("guess-4", "10.0.0.2");
        assertThat(refused.throttled()).isTrue();
        assertThat(refused.justThrottled()).as("logged once, when the allowance ran out").isFalse();
        assertThat(refused.accepted()).isFalse();
        assertThat(refused.retryAfterSeconds()).as("one token back: a third of a minute").isEqualTo(20);

        nowMicros.addAndGet(Duration.ofSeconds(19).toNanos() / 1000);
        assertThat(tokens.check("guess-5", "10.0.0.2").retryAfterSeconds()).isEqualTo(1);
        nowMicros.addAndGet(Duration.ofSeconds(1).toNanos() / 1000);
        AdminTokenCheck.Verdict refilled = tokens.check("guess-6", "10.0.0.2");
        assertThat(refilled.throttled()).as("one wrong token back after a third of the period").isFalse();
        assertThat(refilled.justThrottled()).isTrue();
        assertThat(tokens.check("guess-7", "10.0.0.2").throttled()).isTrue();
    }

    @Test
    void theRightTokenIsAcceptedFromAnAddressWhoseWrongTokensAreThrottled() {
        for (int i = 0; i < 30; i++) {
            tokens.check("guess-" + i, "127.0.0.1");
        }
        assertThat(tokens.check("guess-31", "127.0.0.1").throttled()).isTrue();

        AdminTokenCheck.Verdict right = tokens.check("right-token", "127.0.0.1");
        assertThat(right.throttled()).as("a stranger on the same address locks nobody out").isFalse();
        assertThat(right.actor()).isEqualTo("admin");
        assertThat(right.scope()).isEqualTo(Scope.ADMIN);
        assertThat(tokens.check("alices", "127.0.0.1").actor()).isEqualTo("alice");
        assertThat(tokens.check("guess-32", "127.0.0.1").throttled())
                .as("and the right token gives the guesser nothing back").isTrue();
    }

    @Test
    void rightTokensNeverSpendTheAllowance() {
        for (int i = 0; i < 100; i++) {
            tokens.check("right-token", "10.0.0.8");
        }
        assertThat(tokens.check("guess-1", "10.0.0.8").justThrottled()).isFalse();
        assertThat(tokens.check("guess-2", "10.0.0.8").justThrottled()).isFalse();
        assertThat(tokens.check("guess-3", "10.0.0.8").justThrottled()).isTrue();
    }

    @Test
    void anIpv6HostCountsByItsSlash64() {
        for (int i = 1; i <= 3; i++) {
            tokens.check("guess", "2001:db8:1:2::" + i);
        }
        assertThat(tokens.check("guess", "2001:db8:1:2:ffff::9").throttled()).isTrue();
        assertThat(tokens.check("guess", "2001:db8:1:3::1").throttled()).as("another /64").isFalse();
        assertThat(tokens.check("right-token", "2001:db8:1:2:ffff::9").actor()).isEqualTo("admin");
        assertThat(AdminTokenCheck.addressKey("::ffff:10.1.2.3")).isEqualTo("10.1.2.3");
        assertThat(AdminTokenCheck.addressKey(null)).isEqualTo("unknown");
        assertThat(AdminTokenCheck.addressKey("not:an-address")).isEqualTo("not:an-address");
    }

    @Test
    void blankTokensAreNotConfiguredAndBadLimitsAreRefused() {
        AdminTokenCheck none = new AdminTokenCheck(Map.of("admin", admin(" ")), 1, Duration.ofMinutes(1), nowMicros::get);
        assertThat(none.actors()).isEmpty();
        assertThat(none.check(" ", "10.0.0.1").accepted()).isFalse();
        assertThatThrownBy(() -> new AdminTokenCheck(Map.of(), 0, Duration.ofMinutes(1), nowMicros::get))
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> new AdminTokenCheck(Map.of(), 1, Duration.ZERO, nowMicros::get))
                .hasMessageContaining("period");
    }

    private static AdminTokenCheck.Token admin(String secret) {
        return new AdminTokenCheck.Token(secret, Scope.ADMIN);
    }
}
