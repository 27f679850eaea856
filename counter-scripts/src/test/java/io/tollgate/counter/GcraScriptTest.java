package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code gcra.lua} on a real Redis with explicit times. */
class GcraScriptTest extends RedisScriptTestBase {

    @Test
    void burst_one_spaces_requests_by_the_emission_interval() {
        Policy tenASecond = new Policy(Algorithm.GCRA, 10, 1000, 1);
        String key = freshKey("spacing");
        long t0 = base();

        assertThat(check(key, tenASecond, 1, t0)).isEqualTo(new Decision(true, 0, 0, 100));
        assertThat(check(key, tenASecond, 1, t0 + 40_000)).isEqualTo(new Decision(false, 0, 60, 60));
        assertThat(check(key, tenASecond, 1, t0 + 99_999).allowed()).isFalse();
        assertThat(check(key, tenASecond, 1, t0 + 100_000)).isEqualTo(new Decision(true, 0, 0, 100));
    }

    @Test
    void burst_allows_that_many_at_once_then_one_per_interval() {
        Policy burst3 = new Policy(Algorithm.GCRA, 10, 1000, 3);
        String key = freshKey("burst");
        long t0 = base();

        assertThat(check(key, burst3, 1, t0)).isEqualTo(new Decision(true, 2, 0, 100));
        assertThat(check(key, burst3, 1, t0)).isEqualTo(new Decision(true, 1, 0, 200));
        assertThat(check(key, burst3, 1, t0)).isEqualTo(new Decision(true, 0, 0, 300));
        Decision rejected = check(key, burst3, 1, t0);
        assertThat(rejected).isEqualTo(new Decision(false, 0, 100, 300));
        assertThat(check(key, burst3, 1, t0 + rejected.retryAfterMs() * 1000).allowed()).isTrue();
    }

    @Test
    void remaining_counts_whole_requests_with_an_odd_interval_at_any_time() {
        Policy threeASecond = new Policy(Algorithm.GCRA, 3, 1000, 3);
        for (long offset : new long[]{1, 7, 123_457, 999_999}) {
            String key = freshKey("third");
            long now = base() + offset;
            assertThat(check(key, threeASecond, 1, now).remaining()).isEqualTo(2);
            assertThat(check(key, threeASecond, 1, now).remaining()).isEqualTo(1);
            assertThat(check(key, threeASecond, 1, now).remaining()).isEqualTo(0);
            assertThat(check(key, threeASecond, 1, now).allowed()).isFalse();
        }
    }

    @Test
    void odd_interval_retry_after_is_exact_enough_to_be_allowed() {
        Policy seventh = new Policy(Algorithm.GCRA, 7, 1000, 2);
        String key = freshKey("odd");
        long now = base() + 3;
        for (int i = 0; i < 50; i++) {
            Decision decision = check(key, seventh, 1, now);
            if (!decision.allowed()) {
                now += decision.retryAfterMs() * 1000;
                assertThat(check(key, seventh, 1, now).allowed()).as("retry %d", i).isTrue();
            }
        }
    }

    @Test
    void policy_change_keeps_what_the_bucket_holds_capped_at_the_new_burst() {
        Policy burst10 = new Policy(Algorithm.GCRA, 10, 1000, 10);
        String key = freshKey("change");
        long t0 = base();
        check(key, burst10, 3, t0); // holds 7

        Policy burst5 = new Policy(Algorithm.GCRA, 10, 1000, 5);
        assertThat(check(key, burst5, 1, t0).remaining()).isEqualTo(4); // capped at 5, spent 1
        assertThat(check(key, burst10, 1, t0).remaining()).isEqualTo(3); // no free tokens back
        Policy faster = new Policy(Algorithm.GCRA, 20, 1000, 10);
        // the stored tat says what it held under the old rate until this first check under the new one
        assertThat(check(key, faster, 1, t0 + 100_000).remaining()).isEqualTo(3); // 3 + 10/s x 0.1 s - 1
    }

    @Test
    void cost_above_burst_is_never_allowed() {
        Policy burst3 = new Policy(Algorithm.GCRA, 10, 1000, 3);

        assertThat(check(freshKey("huge"), burst3, 4, base())).isEqualTo(
                new Decision(false, 3, Decision.RETRY_NEVER, 0));
    }

    @Test
    void a_settlement_grows_the_debt_beyond_the_capacity_until_it_is_paid() {
        // 100 ms per request, capacity 5 requests (500 ms)
        Policy tenASecond = new Policy(Algorithm.GCRA, 10, 1000, 5);
        String key = freshKey("debt");
        long t0 = base();
        assertThat(check(key, tenASecond, 1, t0)).isEqualTo(new Decision(true, 4, 0, 100));

        assertThat(settle(key, tenASecond, 9, t0)).isEqualTo(new Decision(true, -5, 0, 1000));

        assertThat(stored(key)).isEqualTo("g:" + t0 + ":1000000:100000:5");
        assertThat(expiryMs(key)).isEqualTo(t0 / 1000 + 1000);
        // the debt must fall to 400 ms for one more request: 600 ms
        assertThat(check(key, tenASecond, 1, t0)).isEqualTo(new Decision(false, -5, 600, 1000));
        assertThat(check(key, tenASecond, 1, t0 + 599_999).allowed()).isFalse();
        assertThat(check(key, tenASecond, 1, t0 + 600_000)).isEqualTo(new Decision(true, 0, 0, 500));
        assertThat(settle(key, tenASecond, -100, t0 + 600_000)).isEqualTo(new Decision(true, 5, 0, 0));
    }

    @Test
    void a_debt_under_a_changed_rate_is_paid_at_its_written_rate_until_a_check_writes_with_an_exact_retry() {
        Policy tenASecond = new Policy(Algorithm.GCRA, 10, 1000, 5);
        Policy hundredASecond = new Policy(Algorithm.GCRA, 100, 1000, 5);
        String key = freshKey("debt-rate");
        long t0 = base() + 7;
        settle(key, tenASecond, 1005, t0); // 1005 requests of 100 ms: a debt of 100.5 s

        Decision rejected = check(key, hundredASecond, 1, t0);

        // held -1000 of 5 at either rate; the stored debt refills one request per 100 ms: 1001 take 100.1 s
        assertThat(rejected).isEqualTo(new Decision(false, -1000, 100_100, 10_050));
        assertThat(check(key, hundredASecond, 1, t0 + 100_099_000).allowed()).isFalse();
        assertThat(check(key, hundredASecond, 1, t0 + 100_100_000)).isEqualTo(new Decision(true, 0, 0, 50));
    }
}
