package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code concurrency.lua} on a real Redis: leases taken by checks, given back by ZREM, ended by their time. */
class ConcurrencyScriptTest extends RedisScriptTestBase {

    static final Policy TB = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);

    /** Two in flight, a lease holding at most a second. */
    static Policy two(long slotId) {
        return Policy.slot(2, 1000, slotId);
    }

    @Test
    void two_leases_are_allowed_a_third_rejected_until_one_is_released() {
        String key = freshKey("lease");
        long t0 = base();

        assertThat(check(key, two(1), 1, t0)).isEqualTo(new Decision(true, 1, 0, 0));
        assertThat(check(key, two(2), 1, t0 + 1_000)).isEqualTo(new Decision(true, 0, 0, 0));
        assertThat(check(key, two(3), 1, t0 + 2_000)).as("no slot: retry at any moment").isEqualTo(
                new Decision(false, 0, 0, 0));

        assertThat(StoredValues.describeKey(client, key)).isEqualTo(
                "z:1@" + (t0 + 1_000_000) + ":2@" + (t0 + 1_001_000));
        assertThat(expiryMs(key)).as("the latest lease's expiry").isEqualTo(t0 / 1000 + 1001);
        assertThat(client.release(key, 1)).isTrue();
        assertThat(client.release(key, 1)).as("given back once").isFalse();
        assertThat(check(key, two(3), 1, t0 + 2_000)).isEqualTo(new Decision(true, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo(
                "z:2@" + (t0 + 1_001_000) + ":3@" + (t0 + 1_002_000));
    }

    @Test
    void leases_end_when_their_time_is_up_and_the_next_check_drops_them() {
        String key = freshKey("expiry");
        long t0 = base();
        check(key, two(1), 1, t0);
        check(key, two(2), 1, t0 + 500_000);

        assertThat(check(key, two(3), 1, t0 + 999_999).allowed()).isFalse();
        assertThat(check(key, two(3), 1, t0 + 1_000_000)).as("lease 1 ends at its expiry")
                .isEqualTo(new Decision(true, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo(
                "z:2@" + (t0 + 1_500_000) + ":3@" + (t0 + 2_000_000));
        assertThat(check(key, two(4), 1, t0 + 2_000_000)).as("both ended").isEqualTo(new Decision(true, 1, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo("z:4@" + (t0 + 3_000_000));
    }

    @Test
    void a_key_with_nothing_in_flight_vanishes() {
        Policy shortLease = Policy.slot(2, 200, 1);
        String released = freshKey("released");
        String expired = freshKey("expired");
        CheckCall take = CheckCall.of(List.of(released), List.of(shortLease), OptionalLong.empty());
        client.check(take);
        client.check(CheckCall.of(List.of(expired), List.of(shortLease), OptionalLong.empty()));
        // the lease's expiry in µs, rounded up to the ms
        assertThat(client.send("PTTL", expired).toLong()).isPositive().isLessThanOrEqualTo(201);

        assertThat(client.release(released, 1)).isTrue();

        assertThat(client.send("EXISTS", released).toLong()).as("the last lease given back").isZero();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> client.send("EXISTS", expired).toLong() == 0);
    }

    @Test
    void a_lease_is_taken_only_when_every_bucket_of_the_client_allows() {
        String who = "lease-aon-" + System.nanoTime();
        String lease = CounterKeys.key("inflight", who);
        String fixed = CounterKeys.key("daily", who);
        Policy once = new Policy(Algorithm.FIXED_WINDOW, 1, 60_000, 1);
        long t0 = base();
        client.check(List.of(lease, fixed), List.of(two(1), once), t0);

        List<Decision> second = client.check(List.of(lease, fixed), List.of(two(2), once), t0);

        assertThat(second).containsExactly(new Decision(true, 1, 0, 0), new Decision(false, 0, 60_000, 60_000));
        assertThat(StoredValues.describeKey(client, lease)).isEqualTo("z:1@" + (t0 + 1_000_000));
    }

    @Test
    void a_key_of_another_kind_starts_fresh_when_its_rule_changes_algorithm() {
        String key = freshKey("kind");
        long t0 = base();
        check(key, TB, 5, t0);

        assertThat(check(key, two(1), 1, t0)).isEqualTo(new Decision(true, 1, 0, 0));
        assertThat(client.peek(List.of(key), List.of(TB), t0)).containsExactly(new Peek(false, 20, 0));
        assertThat(check(key, TB, 5, t0)).isEqualTo(new Decision(true, 15, 0, 500));
        assertThat(client.peek(List.of(key), List.of(two(9)), t0)).containsExactly(new Peek(false, 2, 0));
        assertThat(settle(key, TB, 1, t0)).isEqualTo(new Decision(true, 14, 0, 600));
    }

    @Test
    void a_settlement_of_a_concurrency_key_other_than_a_release_or_renewal_is_an_error_and_writes_nothing() {
        String who = "lease-settle-" + System.nanoTime();
        String tb = CounterKeys.key("tb", who);
        String lease = CounterKeys.key("inflight", who);
        String now = Long.toString(base());

        assertError(List.of(tb, lease), List.of(now, "token_bucket", "10", "1000", "20", "1", "concurrency", "2",
                "1000", "7", "s1"), "cost of key 2 settles a concurrency key", "\"s1\"");

        assertThat(client.send("EXISTS", tb, lease).toLong()).isZero();
        assertThatThrownBy(() -> CheckCall.settle(List.of(lease), List.of(two(7)), List.of(1L), OptionalLong.empty()))
                .hasMessageContaining("concurrency key");
    }

    @Test
    void a_settlement_of_minus_one_gives_the_lease_back_in_the_same_call_as_other_checks() {
        String key = freshKey("release");
        String other = freshKey("beside");
        long t0 = base();
        check(key, two(1), 1, t0);
        check(key, two(2), 1, t0 + 1_000);

        CheckCall release = CheckCall.settle(List.of(key), List.of(two(1)), List.of(-1L), OptionalLong.of(t0 + 2_000));
        CheckCall beside = CheckCall.of(List.of(other), List.of(TB), OptionalLong.of(t0 + 2_000));
        CheckCall retake = CheckCall.of(List.of(key), List.of(two(3)), OptionalLong.of(t0 + 2_000));
        CheckCall together = CheckCall.together(List.of(release, beside, retake));
        List<Decision> all = client.check(together);

        assertThat(all).as("the release answers 1, 0, 0, 0; the retake finds the slot it freed")
                .containsExactly(new Decision(true, 0, 0, 0), new Decision(true, 19, 0, 100),
                        new Decision(true, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo(
                "z:2@" + (t0 + 1_001_000) + ":3@" + (t0 + 1_002_000));

        InMemoryCounters counters = new InMemoryCounters();
        counters.check(List.of(key), List.of(two(1)), t0);
        assertThat(counters.settle(List.of(key), List.of(two(1)), List.of(-1L), t0 + 2_000))
                .containsExactly(new Decision(true, 0, 0, 0));
        assertThat(counters.size()).as("the last lease given back forgets the key").isZero();
    }

    @Test
    void a_settlement_of_zero_renews_a_live_lease_and_never_one_expired_or_given_back() {
        String key = freshKey("renew");
        long t0 = base();
        check(key, two(1), 1, t0);
        check(key, two(2), 1, t0 + 1_000);
        check(key, two(3), 1, t0 + 2_000); // rejected: both slots taken
        client.release(key, 2);

        // half a second in, lease 1 (ending at t0 + 1 s) renewed: it ends a second from then
        assertThat(settle(key, two(1), 0, t0 + 500_000)).isEqualTo(new Decision(true, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo("z:1@" + (t0 + 1_500_000));
        assertThat(expiryMs(key)).as("the key lives as long as the renewed lease").isEqualTo(t0 / 1000 + 1500);
        assertThat(settle(key, two(2), 0, t0 + 600_000)).as("a lease given back is not renewed")
                .isEqualTo(new Decision(true, 0, 0, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo("z:1@" + (t0 + 1_500_000));
        assertThat(check(key, Policy.slot(1, 1000, 4), 1, t0 + 1_200_000).allowed())
                .as("past the lease's first end it still holds its slot").isFalse();

        // an expired lease stays expired: renewing it at t0 + 2 s changes nothing
        settle(key, two(1), 0, t0 + 2_000_000);
        assertThat(StoredValues.describeKey(client, key)).isEqualTo("z:1@" + (t0 + 1_500_000));
        assertThat(check(key, Policy.slot(1, 1000, 5), 1, t0 + 2_000_000).allowed()).isTrue();

        InMemoryCounters counters = new InMemoryCounters();
        counters.check(List.of(key), List.of(two(1)), t0);
        counters.settle(List.of(key), List.of(two(1)), List.of(0L), t0 + 500_000);
        assertThat(counters.check(List.of(key), List.of(Policy.slot(1, 1000, 4)), t0 + 1_200_000).get(0).allowed())
                .as("the Java twin renews alike").isFalse();
        counters.settle(List.of(key), List.of(two(1)), List.of(0L), t0 + 2_000_000);
        assertThat(counters.check(List.of(key), List.of(Policy.slot(1, 1000, 5)), t0 + 2_000_000).get(0).allowed())
                .isTrue();
    }

    @Test
    void nonsense_lease_arguments_are_errors_naming_them() {
        String key = freshKey("bad-lease");
        String now = Long.toString(base());
        assertError(List.of(key), List.of(now, "concurrency", "2", "1000", "7", "2"), "cost of key 1 must be 1",
                "\"2\"");
        assertError(List.of(key), List.of(now, "concurrency", "2", "0", "7", "1"), "lease_ms of key 1", "\"0\"");
        assertError(List.of(key), List.of(now, "concurrency", "2", "1000", "1.5", "1"), "lease_id of key 1",
                "\"1.5\"");
        assertError(List.of(key), List.of(now, "concurrency", "2", "1000", "1e13", "1"), "lease_id of key 1",
                "\"1e13\"");
        assertThat(client.send("EXISTS", key).toLong()).isZero();
        assertThatThrownBy(() -> Policy.slot(2, 1000, 0)).hasMessageContaining("slotId");
        assertThatThrownBy(() -> two(1).withCost(2)).hasMessageContaining("cost of a concurrency policy");
    }

    @Test
    void a_peek_counts_the_live_leases_and_changes_nothing() {
        String key = freshKey("peek-lease");
        long t0 = base();
        check(key, two(1), 1, t0);
        String before = StoredValues.describeKey(client, key);

        assertThat(client.peek(List.of(key), List.of(two(2)), t0)).containsExactly(new Peek(true, 1, 0));
        assertThat(client.peek(List.of(key), List.of(two(2)), t0 + 1_000_000)).as("its lease ended")
                .containsExactly(new Peek(false, 2, 0));
        assertThat(client.peek(List.of(freshKey("never")), List.of(two(2)), t0)).containsExactly(new Peek(false, 2, 0));
        assertThat(StoredValues.describeKey(client, key)).isEqualTo(before);
    }

    private static void assertError(List<String> keys, List<String> argv, String... fragments) {
        CheckCall call = new CheckCall(keys, argv);
        assertThatThrownBy(() -> client.check(call)).hasMessageContaining("tollgate check")
                .hasMessageContainingAll(fragments);
    }
}
