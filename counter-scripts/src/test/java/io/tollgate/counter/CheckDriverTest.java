package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code check.lua}: the reply shape, all-or-nothing, expiries, argument checks, atomicity. */
class CheckDriverTest extends RedisScriptTestBase {

    static final Policy TB = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);
    static final Policy GCRA = new Policy(Algorithm.GCRA, 10, 1000, 5);
    static final Policy FIXED = new Policy(Algorithm.FIXED_WINDOW, 1, 60_000, 1);
    static final Policy SLIDING = new Policy(Algorithm.SLIDING_WINDOW, 5, 1000, 5);

    @Test
    void sha1_is_what_redis_computes_and_main_prints_the_text() {
        CounterScripts.Script check = CounterScripts.check();
        assertThat(client.send("SCRIPT LOAD", check.text()).toString()).isEqualTo(check.sha1());

        PrintStream original = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            CounterScripts.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo(check.text());
    }

    @Test
    void one_key_replies_exactly_four_integers() {
        CheckCall call = CheckCall.of(List.of(freshKey("one")), List.of(TB), 1, OptionalLong.of(base()));
        List<String> args = new ArrayList<>(call.evalArgs());
        args.add(0, CounterScripts.check().text());

        var reply = client.send("EVAL", args.toArray(String[]::new));

        assertThat(reply.size()).isEqualTo(4);
        assertThat(List.of(reply.get(0).toLong(), reply.get(1).toLong(), reply.get(2).toLong(),
                reply.get(3).toLong())).containsExactly(1L, 19L, 0L, 100L);
    }

    @Test
    void mixed_algorithms_in_one_call_each_decide_for_their_own_key() {
        String client1 = "mixed-" + System.nanoTime();
        List<String> keys = List.of(CounterKeys.key("a", client1), CounterKeys.key("b", client1),
                CounterKeys.key("c", client1), CounterKeys.key("d", client1));
        long t0 = base();

        List<Decision> first = client.check(keys, List.of(TB, GCRA, FIXED, SLIDING), 1, t0);

        assertThat(first).containsExactly(new Decision(true, 19, 0, 100), new Decision(true, 4, 0, 100),
                new Decision(true, 0, 0, 60_000), new Decision(true, 4, 0, 2000));
    }

    @Test
    void all_or_nothing_a_rejection_spends_from_no_bucket() {
        String who = "aon-" + System.nanoTime();
        List<String> keys = List.of(CounterKeys.key("tb", who), CounterKeys.key("fw", who));
        long t0 = base();
        client.check(keys, List.of(TB, FIXED), 1, t0);
        String tokensBefore = stored(keys.get(0));

        List<Decision> second = client.check(keys, List.of(TB, FIXED), 1, t0 + 100_000);

        assertThat(second.get(1)).isEqualTo(new Decision(false, 0, 59_900, 59_900));
        // the token bucket would allow: it reports what it holds unspent, and its stored value is untouched
        assertThat(second.get(0)).isEqualTo(new Decision(true, 20, 0, 0));
        assertThat(stored(keys.get(0))).isEqualTo(tokensBefore);
    }

    @Test
    void every_written_key_expires_when_full_again_or_its_windows_are_over() {
        String who = "ttl-" + System.nanoTime();
        List<String> keys = List.of(CounterKeys.key("tb", who), CounterKeys.key("gcra", who),
                CounterKeys.key("fw", who), CounterKeys.key("sw", who));
        long realNow = System.currentTimeMillis() * 1000;

        client.check(keys, List.of(TB, GCRA, FIXED, SLIDING), 1, realNow);

        long[] expectedMaxMs = {100, 100, 60_000, 2000};
        for (int i = 0; i < keys.size(); i++) {
            long pttl = client.send("PTTL", keys.get(i)).toLong();
            assertThat(pttl).as(keys.get(i)).isPositive().isLessThanOrEqualTo(expectedMaxMs[i]);
        }
    }

    @Test
    void idle_keys_vanish() {
        String key = freshKey("idle");
        check(key, TB, 1, System.currentTimeMillis() * 1000);
        assertThat(stored(key)).isNotNull();

        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> stored(key) == null);
    }

    @Test
    void taking_redis_time_works() {
        String key = freshKey("time");
        CheckCall call = CheckCall.of(List.of(key), List.of(TB), 1, OptionalLong.empty());

        assertThat(client.check(call)).containsExactly(new Decision(true, 19, 0, 100));
    }

    @Test
    void two_hundred_concurrent_clients_on_one_token_exactly_one_passes() {
        Policy oneADay = new Policy(Algorithm.TOKEN_BUCKET, 1, 86_400_000, 1);
        CheckCall call = CheckCall.of(List.of(freshKey("race")), List.of(oneADay), 1, OptionalLong.empty());

        List<CompletableFuture<List<Long>>> replies = IntStream.range(0, 200)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> client.checkAsync(call)).thenCompose(f -> f))
                .toList();

        long allowed = replies.stream().map(ScriptClient::await).filter(r -> r.get(0) == 1).count();
        assertThat(allowed).isEqualTo(1);
    }

    @Test
    void several_clients_in_one_call_decide_and_spend_as_their_calls_one_by_one_would() {
        // the same histories on two sets of keys: one checked call by call, the other in one call together
        long t0 = base();
        List<List<Decision>> alone = new ArrayList<>();
        List<List<Decision>> together = new ArrayList<>();
        List<List<String>> aloneKeys = new ArrayList<>();
        List<List<String>> togetherKeys = new ArrayList<>();
        for (List<List<String>> keysOfSet : List.of(aloneKeys, togetherKeys)) {
            String set = "set-" + System.nanoTime();
            List<String> rich = List.of(CounterKeys.key("tb", set + "-rich"), CounterKeys.key("fw", set + "-rich"));
            List<String> spent = List.of(CounterKeys.key("tb", set + "-spent"), CounterKeys.key("fw", set + "-spent"));
            List<String> single = List.of(CounterKeys.key("gcra", set + "-single"));
            client.check(spent, List.of(TB, FIXED), 1, t0); // its fixed window is used up for a minute
            // the single client twice: the second check sees the first's spend
            keysOfSet.addAll(List.of(rich, spent, single, single));
        }
        List<Policy> two = List.of(TB, FIXED);
        List<List<Policy>> policies = List.of(two, two, List.of(GCRA), List.of(GCRA));
        List<CheckCall> calls = new ArrayList<>();
        for (int i = 0; i < aloneKeys.size(); i++) {
            alone.add(client.check(CheckCall.of(aloneKeys.get(i), policies.get(i), 1, OptionalLong.of(t0 + 1000))));
            calls.add(CheckCall.of(togetherKeys.get(i), policies.get(i), 1, OptionalLong.of(t0 + 1000)));
        }

        CheckCall one = CheckCall.together(calls);
        List<Decision> all = client.check(one);
        for (int i = 0, at = 0; i < calls.size(); at += calls.get(i).keys().size(), i++) {
            together.add(all.subList(at, at + calls.get(i).keys().size()));
        }

        assertThat(one.keys()).hasSize(6);
        assertThat(together).isEqualTo(alone);
        assertThat(alone.get(0)).allMatch(Decision::allowed);
        assertThat(alone.get(1).get(1).allowed()).isFalse(); // all or nothing within that client
        assertThat(alone.get(3).get(0).remaining()).isEqualTo(alone.get(2).get(0).remaining() - 1);
        for (int i = 0; i < aloneKeys.size(); i++) {
            for (int k = 0; k < aloneKeys.get(i).size(); k++) {
                assertThat(stored(togetherKeys.get(i).get(k))).as("stored value of call %d key %d", i, k)
                        .isEqualTo(stored(aloneKeys.get(i).get(k)));
            }
        }
    }

    @Test
    void a_calendar_windows_end_and_a_slots_id_travel_in_period_ms_and_burst() {
        CheckCall call = CheckCall.of(List.of("rl:a:{x}:w", "rl:b:{x}"),
                List.of(Policy.calendarWindow(3, 1_767_225_600, 2), Policy.slot(5, 60_000, 42)), OptionalLong.of(7));

        assertThat(call.args()).containsExactly("7", "calendar_window", "3", "1767225600", "1", "2", "concurrency", "5",
                "60000", "42", "1");
        Policy template = new Policy(Algorithm.CONCURRENCY, 5, 60_000, 5);
        assertThat(template.slotId()).as("a concurrency rule's policy before a request takes a slot").isZero();
        assertThatThrownBy(() -> CheckCall.of(List.of("rl:b:{x}"), List.of(template), OptionalLong.empty()))
                .hasMessageContaining("takes a slot");
        assertThatThrownBy(() -> new Policy(Algorithm.CALENDAR_WINDOW, 3, 86_400_000, 1))
                .hasMessageContaining("calendar window");
    }

    @Test
    void together_is_for_calls_of_one_moment_each_one_clients_each_key_at_its_cost() {
        CheckCall a = CheckCall.of(List.of("rl:a:{x}"), List.of(TB), 1, OptionalLong.empty());
        CheckCall b = CheckCall.of(List.of("rl:a:{y}"), List.of(TB), 2, OptionalLong.empty());
        CheckCall c = CheckCall.of(List.of("rl:a:{z}"), List.of(TB), 1, OptionalLong.of(5));
        CheckCall d = CheckCall.of(List.of("rl:a:{w}"), List.of(TB), 1, OptionalLong.empty());

        assertThat(CheckCall.together(List.of(a))).isSameAs(a);
        assertThat(CheckCall.together(List.of(a, b)).args()).containsExactly("", "token_bucket", "10", "1000", "20",
                "1", "token_bucket", "10", "1000", "20", "2", "1", "1");
        assertThatThrownBy(() -> CheckCall.together(List.of(a, c))).hasMessageContaining("share now");
        assertThatThrownBy(() -> CheckCall.together(List.of(a, CheckCall.together(List.of(a, d)))))
                .hasMessageContaining("not already several");
    }

    @Test
    void each_key_spends_its_own_cost_all_or_nothing() {
        String cheap = freshKey("cost-cheap");
        String dear = cheap.replace("cost-cheap", "cost-dear");
        long now = base();
        List<Policy> policies = List.of(TB.withCost(1), TB.withCost(7));
        List<Decision> first = client.check(CheckCall.of(List.of(cheap, dear), policies, OptionalLong.of(now)));
        assertThat(first).extracting(Decision::allowed).containsExactly(true, true);
        assertThat(first).extracting(Decision::remaining).containsExactly(19L, 13L);
        client.check(CheckCall.of(List.of(cheap, dear), policies, OptionalLong.of(now)));
        // the dear bucket holds 6 of the 7 a third request needs: nothing is spent, the cheap one keeps its 18
        List<Decision> third = client.check(CheckCall.of(List.of(cheap, dear), policies, OptionalLong.of(now)));
        assertThat(third).extracting(Decision::allowed).containsExactly(true, false);
        assertThat(third).extracting(Decision::remaining).containsExactly(18L, 6L);
        assertThat(third.get(1).retryAfterMs()).as("10 a second: the 7th token in 100 ms").isEqualTo(100);
    }

    @Test
    void key_counts_of_several_clients_must_cover_the_keys_and_an_error_writes_nothing() {
        String first = freshKey("counts-a");
        String second = freshKey("counts-b");
        String now = Long.toString(base());
        List<String> policies = List.of(now, "token_bucket", "10", "1000", "5", "1", "token_bucket", "10", "1000",
                "5", "1");
        List<String> keys = List.of(first, second);
        assertError(keys, plus(policies, "1"), "sum to 1, not the 2 keys");
        assertError(keys, plus(policies, "1", "2"), "key count of client 2", "\"2\"");
        assertError(keys, plus(policies, "0", "2"), "key count of client 1", "\"0\"");
        assertError(keys, plus(policies, "x", "1"), "key count of client 1", "\"x\"");
        // a nonsense policy of a later client: the earlier one is not spent either
        List<String> badSecond = List.of(now, "token_bucket", "10", "1000", "5", "1", "token_bucket", "10", "1000",
                "-5", "1", "1", "1");
        assertError(keys, badSecond, "burst of key 2", "\"-5\"");
        assertThat(stored(first)).isNull();
        assertThat(stored(second)).isNull();
    }

    private static List<String> plus(List<String> list, String... more) {
        List<String> all = new ArrayList<>(list);
        all.addAll(List.of(more));
        return all;
    }

    @Test
    void nonsense_arguments_are_errors_naming_the_argument_and_value() {
        String key = freshKey("bad");
        String now = Long.toString(base());
        assertError(List.of(key), List.of(now, "token_bucket", "-3", "1000", "5", "1"), "limit of key 1", "\"-3\"");
        assertError(List.of(key), List.of(now, "token_bucket", "0", "1000", "5", "1"), "limit of key 1", "\"0\"");
        assertError(List.of(key), List.of(now, "gcra", "10", "abc", "5", "1"), "period_ms of key 1", "\"abc\"");
        assertError(List.of(key), List.of(now, "gcra", "10", "1000", "", "1"), "burst of key 1", "\"\"");
        assertError(List.of(key), List.of(now, "fixed_window", "10", "1000", "1.5", "1"), "burst", "\"1.5\"");
        assertError(List.of(key), List.of(now, "leaky_bucket", "10", "1000", "5", "1"), "algorithm of key 1",
                "\"leaky_bucket\"");
        assertError(List.of(key), List.of(now, "token_bucket", "10", "1000", "5", "0"), "cost of key 1", "\"0\"");
        assertError(List.of(key), List.of(now, "token_bucket", "10", "1000", "5", "-1"), "cost of key 1", "\"-1\"");
        assertError(List.of(key), List.of(now, "token_bucket", "10", "1000", "5", ""), "cost of key 1", "\"\"");
        assertError(List.of(key), List.of("-5", "token_bucket", "10", "1000", "5", "1"), "now_us", "\"-5\"");
        assertError(List.of(key), List.of("soon", "token_bucket", "10", "1000", "5", "1"), "now_us", "\"soon\"");
        assertError(List.of(key), List.of(now, "token_bucket", "10", "1000", "5"), "ARGV count 5", "expected 6");
        assertError(List.of(key, key + "2"), List.of(now, "token_bucket", "10", "1000", "5", "1"), "ARGV count 6",
                "expected 11");
        assertThat(stored(key)).isNull();
    }

    @Test
    void nonsense_settlements_are_errors_naming_the_cost_and_value_and_write_nothing() {
        String key = freshKey("bad-settle");
        String now = Long.toString(base());
        for (String cost : List.of("s", "s1.5", "sx", "s1e13", "s-1e13", "S5", "5s")) {
            assertError(List.of(key), List.of(now, "token_bucket", "10", "1000", "5", cost), "cost of key 1",
                    "\"" + cost + "\"");
        }
        assertThat(stored(key)).isNull();
        assertThatThrownBy(() -> CheckCall.settle(List.of(key), List.of(TB), List.of(Policy.MAX_COST + 1),
                OptionalLong.empty())).hasMessageContaining("delta of key 1");
    }

    @Test
    void settle_lays_out_each_delta_in_its_keys_cost_slot() {
        CheckCall call = CheckCall.settle(List.of("rl:a:{x}", "rl:b:{x}", "rl:c:{x}"), List.of(TB, GCRA, FIXED),
                List.of(35L, -12L, 0L), OptionalLong.of(5));

        assertThat(call.args()).containsExactly("5", "token_bucket", "10", "1000", "20", "s35", "gcra", "10", "1000",
                "5", "s-12", "fixed_window", "1", "60000", "1", "s0");
    }

    @Test
    void settled_keys_are_written_whatever_the_checked_keys_of_their_client_decide() {
        String who = "mixed-settle-" + System.nanoTime();
        String checked = CounterKeys.key("tb", who);
        String full = CounterKeys.key("fw", who);
        String settled = CounterKeys.key("gcra", who);
        long t0 = base();
        String now = Long.toString(t0);
        client.check(List.of(full), List.of(FIXED), 1, t0); // its one request a minute is spent

        List<Decision> decisions = client.check(new CheckCall(List.of(checked, settled, full), List.of(now,
                "token_bucket", "10", "1000", "20", "1", "gcra", "10", "1000", "5", "s7", "fixed_window", "1", "60000",
                "1", "1")));

        // the token bucket would allow, but nothing checked is spent; the settlement is: 7 x 100 ms of debt
        assertThat(decisions).containsExactly(new Decision(true, 20, 0, 0), new Decision(true, -2, 0, 700),
                new Decision(false, 0, 60_000, 60_000));
        assertThat(stored(checked)).isNull();
        assertThat(stored(settled)).isEqualTo("g:" + t0 + ":700000:100000:5");
    }

    @Test
    void a_settlement_sent_together_with_checks_is_seen_by_the_checks_after_it() {
        String key = freshKey("together-settle");
        long t0 = base();
        client.check(List.of(key), List.of(TB), 5, t0);
        CheckCall settlement = CheckCall.settle(List.of(key), List.of(TB), List.of(30L), OptionalLong.of(t0));
        CheckCall check = CheckCall.of(List.of(key), List.of(TB), OptionalLong.of(t0));
        CheckCall other = CheckCall.of(List.of(freshKey("together-other")), List.of(TB), OptionalLong.of(t0));

        List<Decision> all = client.check(CheckCall.together(List.of(other, settlement, check)));

        assertThat(all).containsExactly(new Decision(true, 19, 0, 100), new Decision(true, -15, 0, 3500),
                new Decision(false, -15, 1600, 3500));
    }

    private static void assertError(List<String> keys, List<String> argv, String... fragments) {
        CheckCall call = new CheckCall(keys, argv);
        assertThatThrownBy(() -> client.check(call)).hasMessageContaining("tollgate check")
                .hasMessageContainingAll(fragments);
    }
}
