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
}
