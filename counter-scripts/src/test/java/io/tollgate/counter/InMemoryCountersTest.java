package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** {@link InMemoryCounters} on its own: atomic under threads, all or nothing, bounded memory, peek and reset. */
class InMemoryCountersTest {

    static final long T0 = 1_800_000_000_000_000L;
    static final Policy ONE_A_DAY = new Policy(Algorithm.TOKEN_BUCKET, 1, 86_400_000, 1);
    static final Policy TB = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);

    final InMemoryCounters counters = new InMemoryCounters();

    @Test
    void lesson_worked_example() {
        String key = CounterKeys.key("orders.write", "ak_42");
        counters.check(List.of(key), List.of(TB), 16, T0);

        assertThat(counters.check(List.of(key), List.of(TB), 1, T0 + 500_000)).containsExactly(
                new Decision(true, 8, 0, 1200));
    }

    @Test
    void two_hundred_threads_on_one_token_exactly_one_passes() throws Exception {
        String key = CounterKeys.key("race", "c");
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Boolean>> results = IntStream.range(0, 200).mapToObj(i -> pool.submit(() -> {
                start.await();
                return counters.check(List.of(key), List.of(ONE_A_DAY), 1, T0 + i).get(0).allowed();
            })).toList();
            start.countDown();
            long allowed = 0;
            for (Future<Boolean> result : results) {
                allowed += result.get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(allowed).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void a_rejection_spends_from_no_bucket() {
        List<String> keys = List.of(CounterKeys.key("a", "c"), CounterKeys.key("b", "c"));
        List<Policy> policies = List.of(TB, ONE_A_DAY);
        counters.check(keys, policies, 1, T0);

        List<Decision> second = counters.check(keys, policies, 1, T0);

        assertThat(second.get(1).allowed()).isFalse();
        assertThat(second.get(0)).isEqualTo(new Decision(true, 19, 0, 100));
        assertThat(counters.check(List.of(keys.get(0)), List.of(TB), 1, T0).get(0).remaining()).isEqualTo(18);
    }

    @Test
    void keys_are_forgotten_once_full_again_so_memory_stays_bounded() {
        for (int i = 0; i < 10_000; i++) {
            counters.check(List.of(CounterKeys.key("r", "client-" + i)), List.of(TB), 1, T0 + i);
        }
        assertThat(counters.size()).isGreaterThan(5_000);

        counters.forgetExpired(T0 + 10_000 + 100_000);

        assertThat(counters.size()).isZero();
    }

    @Test
    void sweeps_on_its_own_as_checks_go_on() {
        for (int i = 0; i < 20_000; i++) {
            // each key is full again 100 ms after its check; time moves 1 ms per check
            counters.check(List.of(CounterKeys.key("r", "client-" + i)), List.of(TB), 1, T0 + i * 1000L);
        }
        assertThat(counters.size()).isLessThan(4096 + 200);
    }

    @Test
    void a_peek_reads_what_a_bucket_holds_and_spends_nothing() {
        String key = CounterKeys.key("orders.write", "peek");
        counters.check(List.of(key), List.of(TB), 16, T0);

        assertThat(counters.peek(key, TB, T0 + 500_000)).isEqualTo(new Peek(true, 9, 1100));
        assertThat(counters.peek(key, TB, T0 + 500_000)).isEqualTo(new Peek(true, 9, 1100));
        assertThat(counters.check(List.of(key), List.of(TB), 1, T0 + 500_000)).containsExactly(
                new Decision(true, 8, 0, 1200));
    }

    @Test
    void an_absent_or_forgotten_bucket_peeks_as_full() {
        String key = CounterKeys.key("r", "forgotten");

        assertThat(counters.peek(key, TB, T0)).isEqualTo(new Peek(false, 20, 0));
        counters.check(List.of(key), List.of(TB), 1, T0); // full again 100 ms later
        assertThat(counters.peek(key, TB, T0 + 99_999)).isEqualTo(new Peek(true, 19, 1));
        assertThat(counters.peek(key, TB, T0 + 100_000)).isEqualTo(new Peek(false, 20, 0));
    }

    @Test
    void a_reset_bucket_is_full_again_and_a_reset_says_whether_there_was_one() {
        String key = CounterKeys.key("r", "reset");
        String other = CounterKeys.key("other", "reset");
        counters.check(List.of(key, other), List.of(ONE_A_DAY, ONE_A_DAY), 1, T0);

        assertThat(counters.reset(key, T0 + 1)).isTrue();

        assertThat(counters.peek(key, ONE_A_DAY, T0 + 1)).isEqualTo(new Peek(false, 1, 0));
        assertThat(counters.check(List.of(key), List.of(ONE_A_DAY), 1, T0 + 1).get(0).allowed()).isTrue();
        assertThat(counters.peek(other, ONE_A_DAY, T0 + 1).remaining()).as("the client's other bucket").isZero();
        assertThat(counters.reset(CounterKeys.key("r", "never-seen"), T0)).isFalse();
        assertThat(counters.reset(other, T0 + 86_400_000_000L)).as("its state expired: nothing to reset").isFalse();
    }

    @Test
    void nonsense_calls_are_refused() {
        assertThatThrownBy(() -> counters.check(List.of("k"), List.of(TB), 0, T0)).hasMessageContaining("cost");
        assertThatThrownBy(() -> counters.check(List.of("k"), List.of(), 1, T0)).hasMessageContaining("policy");
    }

    @Test
    void a_settlement_puts_a_bucket_in_debt_and_a_give_back_refills_it_up_to_the_burst() {
        String key = CounterKeys.key("tokens", "settle");
        counters.check(List.of(key), List.of(TB), 5, T0);

        assertThat(counters.settle(List.of(key), List.of(TB), List.of(30L), T0)).containsExactly(
                new Decision(true, -15, 0, 3500));
        assertThat(counters.check(List.of(key), List.of(TB), 1, T0)).containsExactly(
                new Decision(false, -15, 1600, 3500));
        assertThat(counters.peek(key, TB, T0)).isEqualTo(new Peek(true, -15, 3500));
        assertThat(counters.settle(List.of(key), List.of(TB), List.of(-100L), T0)).containsExactly(
                new Decision(true, 20, 0, 0));
        assertThatThrownBy(() -> counters.settle(List.of(key), List.of(Policy.slot(2, 1000, 1)), List.of(1L), T0))
                .hasMessageContaining("concurrency key");
    }

    @Test
    void leases_count_until_released_or_ended_and_then_the_key_is_forgotten() {
        String key = CounterKeys.key("inflight", "leases");
        assertThat(counters.check(List.of(key), List.of(Policy.slot(2, 1000, 1)), T0)).containsExactly(
                new Decision(true, 1, 0, 0));
        counters.check(List.of(key), List.of(Policy.slot(2, 1000, 2)), T0 + 500_000);

        assertThat(counters.check(List.of(key), List.of(Policy.slot(2, 1000, 3)), T0 + 500_000)).containsExactly(
                new Decision(false, 0, 0, 0));
        assertThat(counters.releaseSlot(key, 1)).isTrue();
        assertThat(counters.releaseSlot(key, 1)).isFalse();
        assertThat(counters.check(List.of(key), List.of(Policy.slot(2, 1000, 3)), T0 + 500_000).get(0).allowed())
                .isTrue();
        assertThat(counters.peek(key, Policy.slot(2, 1000, 4), T0 + 1_499_999)).isEqualTo(new Peek(true, 0, 0));
        assertThat(counters.peek(key, Policy.slot(2, 1000, 4), T0 + 1_500_000)).isEqualTo(new Peek(false, 2, 0));

        counters.forgetExpired(T0 + 1_500_000);

        assertThat(counters.size()).isZero();
        assertThat(counters.releaseSlot(key, 2)).isFalse();
    }

    @Test
    void releasing_the_last_lease_forgets_the_key() {
        String key = CounterKeys.key("inflight", "last");
        counters.check(List.of(key), List.of(Policy.slot(1, 60_000, 7)), T0);

        assertThat(counters.releaseSlot(key, 7)).isTrue();

        assertThat(counters.size()).isZero();
        assertThat(counters.releaseSlot(CounterKeys.key("inflight", "never"), 7)).isFalse();
    }
}
