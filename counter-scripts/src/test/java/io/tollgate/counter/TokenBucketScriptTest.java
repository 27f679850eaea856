package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code token_bucket.lua} on a real Redis with explicit times. */
class TokenBucketScriptTest extends RedisScriptTestBase {

    /** Rate 10 a second, burst 20: the lesson's policy. */
    static final Policy LESSON = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);

    @Test
    void lesson_worked_example_4_tokens_half_a_second_later_allows_with_8_left() {
        String key = freshKey("ak_42");
        long t0 = base();
        assertThat(check(key, LESSON, 16, t0)).isEqualTo(new Decision(true, 4, 0, 1600));

        Decision decision = check(key, LESSON, 1, t0 + 500_000);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(8);
        assertThat(stored(key)).startsWith("t:8:" + (t0 + 500_000) + ":");
    }

    @Test
    void burst_then_rejection_with_a_retry_time_that_is_honoured() {
        String key = freshKey("burst");
        long t0 = base();
        for (int i = 19; i >= 0; i--) {
            assertThat(check(key, LESSON, 1, t0)).isEqualTo(new Decision(true, i, 0, (20 - i) * 100L));
        }

        Decision rejected = check(key, LESSON, 1, t0 + 30_000);

        assertThat(rejected).isEqualTo(new Decision(false, 0, 70, 1970));
        assertThat(check(key, LESSON, 1, t0 + 99_999).allowed()).isFalse();
        assertThat(check(key, LESSON, 1, t0 + 30_000 + rejected.retryAfterMs() * 1000)).isEqualTo(
                new Decision(true, 0, 0, 2000));
    }

    @Test
    void whole_tokens_stay_whole_despite_float_noise() {
        // 10 a second for 0.3 s is 2.9999999999999996 tokens in doubles
        Policy tenASecond = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 10);
        String key = freshKey("noise");
        long t0 = base() + 123_457;
        check(key, tenASecond, 10, t0);

        assertThat(check(key, tenASecond, 1, t0 + 300_000)).isEqualTo(new Decision(true, 2, 0, 800));
        assertThat(check(key, tenASecond, 2, t0 + 300_000)).isEqualTo(new Decision(true, 0, 0, 1000));
    }

    @Test
    void refill_never_exceeds_burst() {
        String key = freshKey("cap");
        long t0 = base();
        check(key, LESSON, 5, t0);

        assertThat(check(key, LESSON, 1, t0 + 3_600_000_000L)).isEqualTo(new Decision(true, 19, 0, 100));
    }

    @Test
    void odd_rate_retry_after_is_exact_enough_to_be_allowed() {
        Policy third = new Policy(Algorithm.TOKEN_BUCKET, 3, 1000, 1);
        String key = freshKey("odd");
        long now = base() + 17;
        check(key, third, 1, now);
        for (int i = 0; i < 50; i++) {
            Decision rejected = check(key, third, 1, now);
            assertThat(rejected.allowed()).isFalse();
            now += rejected.retryAfterMs() * 1000;
            assertThat(check(key, third, 1, now).allowed()).as("retry %d at +%d ms", i, rejected.retryAfterMs())
                    .isTrue();
        }
    }

    @Test
    void cost_above_burst_is_rejected_as_never_and_writes_nothing() {
        String key = freshKey("huge");

        assertThat(check(key, LESSON, 21, base())).isEqualTo(new Decision(false, 20, Decision.RETRY_NEVER, 0));
        assertThat(stored(key)).isNull();
    }

    @Test
    void policy_change_keeps_what_the_bucket_holds_capped_at_the_new_burst() {
        String key = freshKey("change");
        long t0 = base();
        check(key, LESSON, 5, t0); // holds 15

        Policy smaller = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 10);
        assertThat(check(key, smaller, 1, t0).remaining()).isEqualTo(9); // capped at 10, spent 1
        assertThat(check(key, LESSON, 1, t0).remaining()).isEqualTo(8); // no free tokens back

        Policy faster = new Policy(Algorithm.TOKEN_BUCKET, 20, 1000, 20);
        assertThat(check(key, faster, 1, t0 + 100_000).remaining()).isEqualTo(9); // 8 + 20/s x 0.1 s - 1
    }

    @Test
    void a_settlement_beyond_what_the_bucket_holds_puts_it_in_debt_until_the_refill_pays_it() {
        String key = freshKey("debt");
        long t0 = base();
        assertThat(check(key, LESSON, 5, t0)).isEqualTo(new Decision(true, 15, 0, 500));

        // the request used 35: 30 more than its reservation, 15 more than the bucket held
        assertThat(settle(key, LESSON, 30, t0)).isEqualTo(new Decision(true, -15, 0, 3500));

        assertThat(stored(key)).isEqualTo("t:-15:" + t0 + ":" + (t0 + 3_500_000));
        assertThat(expiryMs(key)).as("the key lives until the bucket is full again").isEqualTo(t0 / 1000 + 3500);
        // 16 tokens to refill before one is held: 1.6 s
        assertThat(check(key, LESSON, 1, t0)).isEqualTo(new Decision(false, -15, 1600, 3500));
        assertThat(check(key, LESSON, 1, t0 + 1_599_999).allowed()).isFalse();
        assertThat(check(key, LESSON, 1, t0 + 1_600_000)).isEqualTo(new Decision(true, 0, 0, 2000));
    }

    @Test
    void remaining_in_debt_is_what_is_owed_rounded_up() {
        String key = freshKey("owed");
        long t0 = base();
        check(key, LESSON, 20, t0);
        settle(key, LESSON, 3, t0);

        // -3 + 10/s x 0.05 s = -2.5 tokens: 3.5 to refill before one is held, 22.5 before full
        assertThat(check(key, LESSON, 1, t0 + 50_000)).isEqualTo(new Decision(false, -3, 350, 2250));
        assertThat(check(key, LESSON, 3, t0 + 50_000).retryAfterMs()).isEqualTo(550);
    }

    @Test
    void a_give_back_is_capped_at_the_burst_and_a_settlement_of_zero_changes_nothing() {
        String key = freshKey("refund");
        long t0 = base();
        check(key, LESSON, 5, t0);
        String held = stored(key);

        assertThat(settle(key, LESSON, 0, t0 + 100_000)).isEqualTo(new Decision(true, 16, 0, 400));
        assertThat(stored(key)).isEqualTo(held);
        assertThat(settle(key, LESSON, -3, t0 + 100_000)).isEqualTo(new Decision(true, 19, 0, 100));
        assertThat(settle(key, LESSON, -100, t0 + 100_000)).isEqualTo(new Decision(true, 20, 0, 0));
        assertThat(check(key, LESSON, 1, t0 + 100_000)).isEqualTo(new Decision(true, 19, 0, 100));
    }

    @Test
    void a_debt_of_ages_keeps_its_key_far_out_and_still_decides() {
        Policy onePerHour = new Policy(Algorithm.TOKEN_BUCKET, 1, 3_600_000, 1);
        String key = freshKey("ages");
        long t0 = base();

        Decision settled = settle(key, onePerHour, Policy.MAX_COST, t0);

        assertThat(settled.remaining()).isEqualTo(1 - Policy.MAX_COST);
        assertThat(expiryMs(key)).as("the latest expiry a key is written with").isEqualTo(1L << 53);
        Decision rejected = check(key, onePerHour, 1, t0 + 3_600_000_000L);
        assertThat(rejected.allowed()).isFalse();
        // beyond what a double counts microsecond by microsecond: the estimate of the refill
        assertThat((double) rejected.retryAfterMs()).isCloseTo((Policy.MAX_COST - 1) * 3_600_000.0,
                org.assertj.core.data.Percentage.withPercentage(1e-9));
    }
}
