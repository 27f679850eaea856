package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code fixed_window.lua} and {@code sliding_window.lua} on a real Redis with explicit times. */
class WindowScriptsTest extends RedisScriptTestBase {

    @Test
    void fixed_window_counts_per_window_and_rolls_over() {
        Policy threeASecond = new Policy(Algorithm.FIXED_WINDOW, 3, 1000, 3);
        String key = freshKey("fixed");
        long t0 = base();

        assertThat(check(key, threeASecond, 1, t0 + 100_000)).isEqualTo(new Decision(true, 2, 0, 900));
        assertThat(check(key, threeASecond, 2, t0 + 200_000)).isEqualTo(new Decision(true, 0, 0, 800));
        assertThat(check(key, threeASecond, 1, t0 + 999_999)).isEqualTo(new Decision(false, 0, 1, 1));
        assertThat(check(key, threeASecond, 1, t0 + 1_000_000)).isEqualTo(new Decision(true, 2, 0, 1000));
        assertThat(stored(key)).isEqualTo("f:" + (t0 + 2_000_000) + ":1");
    }

    @Test
    void a_calendar_window_counts_until_its_end_and_the_next_window_counts_afresh() {
        // the window of a month that ends at midnight at t0 + 1 day, checked at fixed moments around it
        long t0 = base();
        long endS = t0 / 1_000_000 + 86_400;
        long endUs = endS * 1_000_000;
        Policy december = Policy.calendarWindow(3, endS, 1);
        Policy january = Policy.calendarWindow(3, endS + 31 * 86_400, 1);
        String decemberKey = CounterKeys.windowed(freshKey("calendar"), "2026-12");
        String januaryKey = decemberKey.replace("2026-12", "2027-01");

        assertThat(check(decemberKey, december, 2, endUs - 10_000_000)).isEqualTo(new Decision(true, 1, 0, 10_000));
        assertThat(check(decemberKey, december, 2, endUs - 1_000)).as("a millisecond before midnight")
                .isEqualTo(new Decision(false, 1, 1, 1));
        assertThat(check(decemberKey, december, 1, endUs - 1_000)).isEqualTo(new Decision(true, 0, 0, 1));
        // a gateway whose clock is behind still names December at midnight: the window is over, nothing counted
        assertThat(check(decemberKey, december, 1, endUs)).isEqualTo(new Decision(true, 2, 0, 0));
        assertThat(check(januaryKey, january, 3, endUs)).as("the 1st: a fresh count")
                .isEqualTo(new Decision(true, 0, 0, 31 * 86_400_000L));
        assertThat(check(januaryKey, january, 1, endUs + 1_000)).isEqualTo(
                new Decision(false, 0, 31 * 86_400_000L - 1, 31 * 86_400_000L - 1));
    }

    @Test
    void sliding_window_weights_the_previous_window() {
        Policy tenASecond = new Policy(Algorithm.SLIDING_WINDOW, 10, 1000, 10);
        String key = freshKey("sliding");
        long t0 = base();
        check(key, tenASecond, 10, t0 + 500_000);

        // a quarter into the next window: estimate = 10 x 0.75 + 0 = 7.5
        assertThat(check(key, tenASecond, 1, t0 + 1_250_000)).isEqualTo(new Decision(true, 1, 0, 1750));
        assertThat(check(key, tenASecond, 1, t0 + 1_250_000)).isEqualTo(new Decision(true, 0, 0, 1750));
        // 7.5 + 2 + 1 > 10; allowed again once 10 x (1 - e) + 2 + 1 <= 10, at e = 0.3
        Decision rejected = check(key, tenASecond, 1, t0 + 1_250_000);
        assertThat(rejected).isEqualTo(new Decision(false, 0, 50, 1750));
        assertThat(check(key, tenASecond, 1, t0 + 1_299_000).allowed()).isFalse();
        assertThat(check(key, tenASecond, 1, t0 + 1_300_000)).isEqualTo(new Decision(true, 0, 0, 1700));
    }

    @Test
    void sliding_window_whole_estimates_stay_whole() {
        // 10 x (1 - 0.7) is 3.0000000000000004 in doubles: 3 + 7 must still fit a limit of 10
        Policy tenASecond = new Policy(Algorithm.SLIDING_WINDOW, 10, 1000, 10);
        String key = freshKey("sliding-noise");
        long t0 = base();
        check(key, tenASecond, 10, t0);

        assertThat(check(key, tenASecond, 7, t0 + 1_700_000)).isEqualTo(new Decision(true, 0, 0, 1300));
    }

    @Test
    void sliding_window_forgets_after_two_windows() {
        Policy twoASecond = new Policy(Algorithm.SLIDING_WINDOW, 2, 1000, 2);
        String key = freshKey("sliding-idle");
        long t0 = base();
        check(key, twoASecond, 2, t0);

        // half into the next window: estimate = 2 x 0.5; 1 + 2 > 2 until that window ends
        assertThat(check(key, twoASecond, 2, t0 + 1_500_000)).isEqualTo(new Decision(false, 1, 500, 500));
        assertThat(check(key, twoASecond, 2, t0 + 2_000_000)).isEqualTo(new Decision(true, 0, 0, 2000));
    }

    @Test
    void cost_above_limit_is_never_allowed() {
        Policy two = new Policy(Algorithm.FIXED_WINDOW, 2, 1000, 2);
        Policy slidingTwo = new Policy(Algorithm.SLIDING_WINDOW, 2, 1000, 2);

        assertThat(check(freshKey("f"), two, 3, base()).retryAfterMs()).isEqualTo(Decision.RETRY_NEVER);
        assertThat(check(freshKey("s"), slidingTwo, 3, base()).retryAfterMs()).isEqualTo(Decision.RETRY_NEVER);
    }

    @Test
    void a_fixed_window_in_debt_rejects_until_it_ends_and_gives_back_down_to_zero() {
        Policy tenASecond = new Policy(Algorithm.FIXED_WINDOW, 10, 1000, 10);
        String key = freshKey("fixed-debt");
        long t0 = base();
        assertThat(check(key, tenASecond, 4, t0 + 100_000)).isEqualTo(new Decision(true, 6, 0, 900));

        assertThat(settle(key, tenASecond, 10, t0 + 200_000)).isEqualTo(new Decision(true, -4, 0, 800));

        assertThat(stored(key)).isEqualTo("f:" + (t0 + 1_000_000) + ":14");
        assertThat(check(key, tenASecond, 1, t0 + 300_000)).isEqualTo(new Decision(false, -4, 700, 700));
        assertThat(check(key, tenASecond, 1, t0 + 1_000_000)).isEqualTo(new Decision(true, 9, 0, 1000));
        assertThat(settle(key, tenASecond, -50, t0 + 1_000_000)).isEqualTo(new Decision(true, 10, 0, 1000));
        assertThat(stored(key)).isEqualTo("f:" + (t0 + 2_000_000) + ":0");
    }

    @Test
    void a_calendar_window_in_debt_rejects_until_it_ends() {
        long t0 = base();
        long endS = t0 / 1_000_000 + 86_400;
        Policy daily = Policy.calendarWindow(3, endS, 1);
        String key = CounterKeys.windowed(freshKey("calendar-debt"), "2026-12-01");
        check(key, daily, 2, t0);

        assertThat(settle(key, daily, 4, t0 + 1_000)).isEqualTo(new Decision(true, -3, 0, 86_399_999));
        assertThat(settle(key, daily, 0, t0 + 1_000)).isEqualTo(new Decision(true, -3, 0, 86_399_999));

        assertThat(check(key, daily, 1, t0 + 2_000)).isEqualTo(new Decision(false, -3, 86_399_998, 86_399_998));
        assertThat(expiryMs(key)).isEqualTo(endS * 1000);
        assertThat(settle(key, daily, -5, t0 + 2_000)).isEqualTo(new Decision(true, 2, 0, 86_399_998));
    }

    @Test
    void a_sliding_window_in_debt_rejects_until_the_windows_counting_it_weigh_enough_less() {
        Policy tenASecond = new Policy(Algorithm.SLIDING_WINDOW, 10, 1000, 10);
        String key = freshKey("sliding-debt");
        long t0 = base();
        check(key, tenASecond, 5, t0 + 500_000);

        assertThat(settle(key, tenASecond, 10, t0 + 500_000)).isEqualTo(new Decision(true, -5, 0, 1500));

        // the next window weighs 15 by 1 - e: 15 x (1 - e) + 1 <= 10 from e = 0.4
        assertThat(check(key, tenASecond, 1, t0 + 500_000)).isEqualTo(new Decision(false, -5, 900, 1500));
        assertThat(check(key, tenASecond, 1, t0 + 1_399_000).allowed()).isFalse();
        assertThat(check(key, tenASecond, 1, t0 + 1_400_000)).isEqualTo(new Decision(true, 0, 0, 1600));
        assertThat(expiryMs(key)).isEqualTo(t0 / 1000 + 3000);
    }

    @Test
    void a_sliding_window_gives_back_from_the_current_window_then_the_previous_one() {
        Policy tenASecond = new Policy(Algorithm.SLIDING_WINDOW, 10, 1000, 10);
        String key = freshKey("sliding-refund");
        long t0 = base();
        check(key, tenASecond, 5, t0 + 500_000);
        check(key, tenASecond, 1, t0 + 1_500_000); // previous 5, current 1

        // 1 from the current window, 2 from the previous: estimate 3 x 0.5 + 0
        assertThat(settle(key, tenASecond, -3, t0 + 1_500_000)).isEqualTo(new Decision(true, 8, 0, 500));
        assertThat(stored(key)).isEqualTo("s:" + (t0 + 1_000_000) + ":1000000:3:0");
        assertThat(settle(key, tenASecond, -9, t0 + 1_500_000)).isEqualTo(new Decision(true, 10, 0, 0));
        assertThat(stored(key)).isEqualTo("s:" + (t0 + 1_000_000) + ":1000000:0:0");
    }
}
