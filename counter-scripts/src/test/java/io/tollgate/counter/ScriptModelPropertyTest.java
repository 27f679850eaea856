package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.tollgate.counter.testing.RedisNode;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * For random sequences of (time step, cost, policy, policy changes), the Lua scripts on a real Redis
 * and the Java side give the SAME decisions and peeks: each reference model alone, and
 * {@link InMemoryCounters} for multi-key calls mixing algorithms.
 */
class ScriptModelPropertyTest {

    private static RedisNode redis;
    private static ScriptClient client;

    /** One step of a sequence: advance the clock, then check with these policies (by index). */
    record Op(long stepMicros, long cost, int policyChoice) {
    }

    @BeforeContainer
    static void startRedis() {
        redis = new RedisNode();
        client = ScriptClient.standalone(redis.address());
    }

    @AfterContainer
    static void stopRedis() {
        client.close();
        redis.close();
    }

    /**
     * Before each check a peek, with the check's policy or the other one: it reads as the model does, leaves the
     * stored value and its expiry as they were, and the checks after it still decide as the model, which never
     * saw it.
     */
    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void each_model_decides_and_peeks_as_its_script(@ForAll Algorithm algorithm, @ForAll("shapes") long[] first,
            @ForAll("shapes") long[] second, @ForAll("offsets") long offset, @ForAll("ops") List<Op> ops) {
        List<Policy> policies = List.of(policy(algorithm, first), policy(algorithm, second));
        String key = CounterKeys.key("p-" + UUID.randomUUID(), "c");
        CounterModel model = CounterModel.of(algorithm);
        BucketState state = null;
        long now = RedisScriptTestBase.base() + offset;
        for (Op op : ops) {
            now += op.stepMicros();
            Policy peeked = policies.get((op.policyChoice() >> 1) % 2);
            String stored = storedValue(key);
            Peek peek = client.peek(List.of(key), List.of(peeked), now).get(0);

            assertThat(peek).as("peek %s at %d after %s", peeked, now, state).isEqualTo(model.peek(state, peeked, now));
            assertThat(storedValue(key)).as("value and expiry after a peek").isEqualTo(stored);

            Policy policy = policies.get(op.policyChoice() % 2);
            Step step = model.decide(state, policy, now, op.cost());
            Decision lua = client.check(List.of(key), List.of(policy), op.cost(), now).get(0);

            assertThat(lua).as("%s at %d cost %d after %s", policy, now, op.cost(), state).isEqualTo(step.decision());
            if (step.decision().allowed()) {
                state = step.next();
            }
        }
    }

    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void in_memory_counters_decide_as_the_script_for_mixed_multi_key_calls(@ForAll @IntRange(min = 1, max = 3) int keyCount,
            @ForAll("policyPool") List<Policy> pool, @ForAll("offsets") long offset, @ForAll("ops") List<Op> ops) {
        String who = "m-" + UUID.randomUUID();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            keys.add(CounterKeys.key("rule" + i, who));
        }
        InMemoryCounters memory = new InMemoryCounters();
        long now = RedisScriptTestBase.base() + offset;
        for (Op op : ops) {
            now += op.stepMicros();
            List<Policy> policies = new ArrayList<>();
            for (int i = 0; i < keyCount; i++) {
                // bit i of the choice picks key i's policy: policy changes, algorithm changes included
                // and each key its own cost: the first the op's, the others derived from it
                long cost = i == 0 ? op.cost() : 1 + (op.cost() + i) % 5;
                policies.add(pool.get(2 * i + ((op.policyChoice() >> i) & 1)).withCost(cost));
            }
            List<Decision> lua = client.check(keys, policies, now);

            assertThat(memory.check(keys, policies, now)).as("%s at %d", policies, now).isEqualTo(lua);
            // what they hold; not whether they exist: at an explicit now the map drops a state when its
            // moment passes, where Redis drops the key only when its own clock (behind, here) reaches it
            List<Peek> luaPeeks = client.peek(keys, policies, now + op.stepMicros());
            for (int i = 0; i < keyCount; i++) {
                Peek peek = memory.peek(keys.get(i), policies.get(i), now + op.stepMicros());
                assertThat(List.of(peek.remaining(), peek.resetMs())).as("peek of key %d", i)
                        .containsExactly(luaPeeks.get(i).remaining(), luaPeeks.get(i).resetMs());
            }
        }
    }

    @Provide
    Arbitrary<long[]> shapes() {
        Arbitrary<Long> limit = Arbitraries.longs().between(1, 40);
        Arbitrary<Long> periodMs = Arbitraries.of(1L, 3L, 10L, 100L, 250L, 1000L, 7000L, 60_000L, 3_600_000L);
        Arbitrary<Long> burst = Arbitraries.longs().between(1, 50);
        return Combinators.combine(limit, periodMs, burst).as((l, p, b) -> new long[]{l, p, b});
    }

    @Provide
    Arbitrary<List<Policy>> policyPool() {
        Arbitrary<Policy> policy = Combinators.combine(Arbitraries.of(Algorithm.class), shapes()).as(this::policy);
        return policy.list().ofSize(6);
    }

    @Provide
    Arbitrary<Long> offsets() {
        return Arbitraries.longs().between(0, RedisScriptTestBase.DAY_US / 2);
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Long> step = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(0L)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(1, 2_000)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(1, 3_000_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 7_200_000_000L)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.just(1L)),
                net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(2, 60)));
        Arbitrary<Integer> choice = Arbitraries.integers().between(0, 7);
        return Combinators.combine(step, cost, choice).as(Op::new).list().ofMinSize(1).ofMaxSize(40);
    }

    /** The stored value as text and its expiry, e.g. {@code t:8:<since>:<full_at> until 1796256001700}. */
    private static String storedValue(String key) {
        return StoredValues.describe(client.send("GET", key)) + " until " + client.send("PEXPIRETIME", key);
    }

    private Policy policy(Algorithm algorithm, long[] shape) {
        if (algorithm == Algorithm.CALENDAR_WINDOW) {
            // a window that ends within the day after the base moment: the ops start before or after its end
            return Policy.calendarWindow(shape[0], RedisScriptTestBase.base() / 1_000_000 + shape[1] % 86_400, 1);
        }
        return new Policy(algorithm, shape[0], shape[1], shape[2]);
    }
}
