package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import io.vertx.redis.client.Response;

/** {@code peek.lua} on a real Redis with explicit times: what buckets hold, and nothing written, ever. */
class PeekScriptTest extends RedisScriptTestBase {

    static final Policy TB = new Policy(Algorithm.TOKEN_BUCKET, 10, 1000, 20);
    static final Policy GCRA = new Policy(Algorithm.GCRA, 10, 1000, 5);
    static final Policy FIXED = new Policy(Algorithm.FIXED_WINDOW, 3, 1000, 3);
    static final Policy SLIDING = new Policy(Algorithm.SLIDING_WINDOW, 10, 1000, 10);
    static final List<Policy> ALL = List.of(TB, GCRA, FIXED, SLIDING);

    @Test
    void sha1_is_what_redis_computes_main_prints_the_text_and_redis_holds_it_to_no_writes() {
        CounterScripts.Script peek = CounterScripts.peek();
        assertThat(client.send("SCRIPT LOAD", peek.text()).toString()).isEqualTo(peek.sha1());
        assertThat(peek.text()).startsWith("#!lua flags=no-writes\n");

        PrintStream original = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            CounterScripts.main(new String[]{"peek"});
        } finally {
            System.setOut(original);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo(peek.text());
        assertThatThrownBy(() -> CounterScripts.main(new String[]{"nothing"})).hasMessageContaining("\"nothing\"");
    }

    @Test
    void each_algorithm_reads_what_its_bucket_holds_now() {
        long t0 = base();
        String tb = freshKey("tb");
        String gcra = freshKey("gcra");
        String fixed = freshKey("fixed");
        String sliding = freshKey("sliding");
        check(tb, TB, 16, t0); // holds 4
        check(gcra, GCRA, 3, t0); // 300 ms of its 500 in use
        check(fixed, FIXED, 2, t0 + 100_000); // 2 of 3 in the window [t0, t0 + 1 s)
        check(sliding, SLIDING, 10, t0 + 500_000); // 10 in the window [t0, t0 + 1 s)

        // 4 + 10/s x 0.5 s = 9; 11 more take 1.1 s
        assertThat(peek(tb, TB, t0 + 500_000)).isEqualTo(new Peek(true, 9, 1100));
        // 200 ms of debt left: 3 of 5 held, full in 200 ms
        assertThat(peek(gcra, GCRA, t0 + 100_000)).isEqualTo(new Peek(true, 3, 200));
        assertThat(peek(fixed, FIXED, t0 + 400_000)).isEqualTo(new Peek(true, 1, 600));
        // a quarter into the next window: estimate 10 x 0.75 = 7.5, so 2 whole held; 0 when that window ends
        assertThat(peek(sliding, SLIDING, t0 + 1_250_000)).isEqualTo(new Peek(true, 2, 750));

        // the check that follows decides from the same state: the token bucket's 9, less the one it spends
        assertThat(check(tb, TB, 1, t0 + 500_000)).isEqualTo(new Decision(true, 8, 0, 1200));
    }

    @Test
    void a_bucket_in_debt_peeks_what_it_owes_as_negative() {
        long t0 = base();
        List<String> keys = new ArrayList<>();
        for (Policy policy : ALL) {
            String key = freshKey("owes-" + policy.algorithm().wireName());
            keys.add(key);
            settle(key, policy, policy.burst() + 3, t0);
        }

        List<Peek> peeks = new ArrayList<>();
        for (int i = 0; i < ALL.size(); i++) {
            peeks.add(peek(keys.get(i), ALL.get(i), t0 + 50_000));
        }

        // 3 beyond each capacity; by then the token bucket owes 2.5 (-3 + 10/s x 0.05 s), GCRA 2.5 (750 ms of
        // debt over 500 of capacity), the windows 3
        assertThat(peeks).containsExactly(new Peek(true, -3, 2250), new Peek(true, -3, 750), new Peek(true, -3, 950),
                new Peek(true, -3, 1950));
    }

    @Test
    void an_absent_bucket_peeks_as_full_and_stays_absent() {
        long now = base() + 400_000;
        List<String> keys = new ArrayList<>();
        for (Policy policy : ALL) {
            keys.add(freshKey(policy.algorithm().wireName()));
        }

        List<Peek> peeks = new ArrayList<>();
        for (int i = 0; i < ALL.size(); i++) {
            peeks.add(peek(keys.get(i), ALL.get(i), now));
        }

        // the fixed window reports, as its checks do, the end of the current window
        assertThat(peeks).containsExactly(new Peek(false, 20, 0), new Peek(false, 5, 0), new Peek(false, 3, 600),
                new Peek(false, 10, 0));
        keys.forEach(key -> assertThat(client.send("EXISTS", key).toLong()).as(key).isZero());
    }

    @Test
    void peeks_between_checks_change_no_stored_value_no_expiry_and_no_later_decision() {
        long t0 = base();
        long[] steps = {0, 30_000, 70_000, 250_000, 900_000, 1_300_000};
        for (Policy policy : ALL) {
            String peeked = freshKey("peeked");
            String alone = freshKey("alone"); // the same checks, never peeked
            long writesBefore = writes();
            int peeks = 0;
            int allowed = 0;
            long cost = policy.burst() / 2 + 1; // so some checks are allowed and some rejected
            for (long step : steps) {
                long now = t0 + step;
                Decision decision = check(peeked, policy, cost, now);
                assertThat(decision).as("%s at +%d µs", policy, step).isEqualTo(check(alone, policy, cost, now));
                allowed += decision.allowed() ? 1 : 0;
                for (long later : new long[]{now, now + 10_000, now + 5_000_000}) {
                    byte[] value = raw(peeked);
                    long expiresAtMs = client.send("PEXPIRETIME", peeked).toLong();

                    peek(peeked, policy, later);
                    peeks++;

                    assertThat(raw(peeked)).as("%s value after a peek at %d", policy, later).isEqualTo(value);
                    assertThat(client.send("PEXPIRETIME", peeked).toLong()).isEqualTo(expiresAtMs);
                }
            }
            assertThat(raw(peeked)).isEqualTo(raw(alone));
            assertThat(allowed).as("%s allowed some and rejected some", policy).isBetween(1, steps.length - 1);
            assertThat(writes() - writesBefore).as("writes of %d checks allowed on two keys, and %d peeks", allowed,
                    peeks).isEqualTo(2L * allowed);
        }
    }

    @Test
    void several_keys_in_one_call_each_read_on_their_own() {
        String who = "several-" + System.nanoTime();
        List<String> keys = List.of(CounterKeys.key("tb", who), CounterKeys.key("gcra", who),
                CounterKeys.key("fixed", who), CounterKeys.key("sliding", who));
        long t0 = base();
        client.check(keys.subList(0, 2), ALL.subList(0, 2), 1, t0);

        assertThat(client.peek(keys, ALL, t0)).containsExactly(new Peek(true, 19, 100), new Peek(true, 4, 100),
                new Peek(false, 3, 1000), new Peek(false, 10, 0));
    }

    @Test
    void taking_redis_time_works() {
        Policy onePerHour = new Policy(Algorithm.TOKEN_BUCKET, 1, 3_600_000, 5);
        String key = freshKey("time");
        client.check(CheckCall.of(List.of(key), List.of(onePerHour), 1, OptionalLong.empty()));

        Peek peek = client.peek(PeekCall.of(List.of(key), List.of(onePerHour), OptionalLong.empty())).get(0);

        assertThat(peek.exists()).isTrue();
        assertThat(peek.remaining()).isEqualTo(4);
        assertThat(peek.resetMs()).isBetween(3_590_000L, 3_600_000L);
    }

    @Test
    void nonsense_arguments_are_errors_naming_the_script_the_argument_and_value() {
        String key = freshKey("bad");
        String now = Long.toString(base());
        assertError(List.of(key), List.of(now, "token_bucket", "0", "1000", "5", "1"), "limit of key 1", "\"0\"");
        assertError(List.of(key), List.of(now, "leaky_bucket", "10", "1000", "5", "1"), "algorithm of key 1",
                "\"leaky_bucket\"");
        assertError(List.of(key), List.of("soon", "gcra", "10", "1000", "5", "1"), "now_us", "\"soon\"");
        assertError(List.of(key), List.of(now, "gcra", "10", "1000", "5"), "ARGV count 5", "expected 6");
        assertThatThrownBy(() -> PeekCall.of(List.of(key), List.of(TB), OptionalLong.empty()).parse(List.of(1L, 2L)))
                .hasMessageContaining("peek replied 2 integers for 1 keys");
    }

    private static void assertError(List<String> keys, List<String> argv, String... fragments) {
        PeekCall call = new PeekCall(new CheckCall(keys, argv));
        assertThatThrownBy(() -> client.peek(call)).hasMessageContaining("ERR tollgate peek: ")
                .hasMessageContainingAll(fragments);
    }

    private static Peek peek(String key, Policy policy, long nowMicros) {
        return client.peek(List.of(key), List.of(policy), nowMicros).get(0);
    }

    /** The stored value's bytes, exactly; null when absent. */
    private static byte[] raw(String key) {
        Response value = client.send("GET", key);
        return value == null ? null : value.toBytes();
    }

    /** Redis's count of changes to its data (every write, in any script or command, adds to it). */
    private static long writes() {
        String info = client.send("INFO", "persistence").toString();
        return info.lines()
                .filter(line -> line.startsWith("rdb_changes_since_last_save:"))
                .mapToLong(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
                .findFirst()
                .orElseThrow();
    }
}
