package io.tollgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.testing.Draws;
import io.tollgate.counter.testing.RedisNode;
import io.tollgate.counter.testing.Seeded;

/**
 * For random sequences of (time step, check, settlement or release, policy, policy changes), the Lua scripts on a
 * real Redis and the Java side give the SAME decisions and peeks and store the same: each reference model alone,
 * and {@link InMemoryCounters} for multi-key calls mixing algorithms. 300 cases each ({@link Seeded}: a failure
 * names its seed and the smallest case found).
 */
class ScriptModelPropertyTest {

    private static RedisNode redis;
    private static ScriptClient client;

    /**
     * What a step does: check; settle by the step's delta (a concurrency key releases instead); release a lease
     * taken before, the delta picking which (any other key settles instead).
     */
    enum Action {
        CHECK, SETTLE, RELEASE
    }

    /** One step of a sequence: advance the clock, then act with these policies (by index). */
    record Op(long stepMicros, long cost, int policyChoice, Action action, long delta) {
    }

    /** A bucket's numbers, before they become a policy of one algorithm. */
    record Shape(long limit, long periodMs, long burst) {
    }

    /** One key of {@code algorithm}, its two policies, where the clock starts after the base moment, the steps. */
    record OneKey(Algorithm algorithm, Shape first, Shape second, long offset, List<Op> ops) {
    }

    /** {@code keyCount} keys, two policies each from the pool, where the clock starts, the steps. */
    record MixedKeys(int keyCount, List<Policy> pool, long offset, List<Op> ops) {
    }

    @BeforeAll
    static void startRedis() {
        redis = new RedisNode();
        client = ScriptClient.standalone(redis.address());
    }

    @AfterAll
    static void stopRedis() {
        client.close();
        redis.close();
    }

    /**
     * Before each step a peek, with the step's policy or the other one: it reads as the model does, leaves the
     * stored value and its expiry as they were, and the steps after it still decide as the model, which never
     * saw it. After each step Redis holds what the model holds, and a key written expires when the model says.
     */
    @Test
    void each_model_decides_settles_and_peeks_as_its_script() {
        Seeded.forAll(300, d -> new OneKey(d.of(Algorithm.class), shape(d), shape(d), offset(d), ops(d)),
                ScriptModelPropertyTest::decidesSettlesAndPeeksAsItsScript);
    }

    @Test
    void in_memory_counters_decide_settle_and_release_as_the_script_for_mixed_multi_key_calls() {
        Seeded.forAll(300, d -> new MixedKeys(d.between(1, 3), policyPool(d), offset(d), ops(d)),
                ScriptModelPropertyTest::inMemoryCountersDecideAsTheScript);
    }

    private static void decidesSettlesAndPeeksAsItsScript(OneKey one) {
        Algorithm algorithm = one.algorithm();
        long offset = one.offset();
        List<Op> ops = one.ops();
        List<Policy> policies = List.of(policy(algorithm, one.first()), policy(algorithm, one.second()));
        String key = CounterKeys.key("p-" + UUID.randomUUID(), "c");
        CounterModel model = CounterModel.of(algorithm);
        BucketState state = null;
        List<Long> leases = new ArrayList<>();
        long now = RedisScriptTestBase.base() + offset;
        for (Op op : ops) {
            now += op.stepMicros();
            Policy peeked = policies.get((op.policyChoice() >> 1) % 2);
            String stored = storedValue(key);
            Peek peek = client.peek(List.of(key), List.of(peeked), now).get(0);

            assertThat(peek).as("peek %s at %d after %s", peeked, now, state).isEqualTo(model.peek(state, peeked, now));
            assertThat(storedValue(key)).as("value and expiry after a peek").isEqualTo(stored);

            Policy policy = policies.get(op.policyChoice() % 2);
            BucketState before = state;
            Action action = action(algorithm, op);
            switch (action) {
                case CHECK -> {
                    if (algorithm == Algorithm.CONCURRENCY) {
                        leases.add((long) leases.size() + 1);
                        policy = Policy.slot(policy.limit(), policy.periodMs(), leases.size());
                    }
                    long cost = algorithm == Algorithm.CONCURRENCY ? 1 : op.cost();
                    Step step = model.decide(state, policy, now, cost);
                    Decision lua = client.check(List.of(key), List.of(policy), cost, now).get(0);

                    assertThat(lua).as("%s at %d cost %d after %s", policy, now, cost, state).isEqualTo(step.decision());
                    if (step.decision().allowed()) {
                        state = step.next();
                    }
                }
                case SETTLE -> {
                    Step step = model.settle(state, policy, now, op.delta());
                    Decision lua = client.settle(List.of(key), List.of(policy), List.of(op.delta()), now).get(0);

                    assertThat(lua).as("%s at %d settling %d after %s", policy, now, op.delta(), state)
                            .isEqualTo(step.decision());
                    if (step.next() != null) {
                        state = step.next();
                    }
                }
                case RELEASE -> {
                    if (leases.isEmpty()) {
                        continue;
                    }
                    long leaseId = leases.get(Math.floorMod(op.delta(), leases.size()));
                    boolean held = state instanceof ConcurrencyModel.State s && s.slots().containsKey(leaseId);

                    assertThat(client.release(key, leaseId)).as("release of lease %d of %s", leaseId, state)
                            .isEqualTo(held);
                    if (held) {
                        state = ((ConcurrencyModel.State) state).release(leaseId);
                    }
                }
            }
            assertThat(StoredValues.describeKey(client, key)).as("stored at %d", now)
                    .isEqualTo(StoredValues.describe(state));
            // a release leaves the key's expiry at its latest lease's, released or not
            if (state != before && state != null && action != Action.RELEASE) {
                assertThat(client.send("PEXPIRETIME", key).toLong()).as("expiry of %s", state)
                        .isEqualTo(StoredValues.expiryMs(state));
            }
        }
    }

    private static void inMemoryCountersDecideAsTheScript(MixedKeys mixed) {
        int keyCount = mixed.keyCount();
        List<Policy> pool = mixed.pool();
        long offset = mixed.offset();
        List<Op> ops = mixed.ops();
        String who = "m-" + UUID.randomUUID();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            keys.add(CounterKeys.key("rule" + i, who));
        }
        InMemoryCounters memory = new InMemoryCounters();
        // the leases checked, as key index and lease id
        List<long[]> leases = new ArrayList<>();
        long now = RedisScriptTestBase.base() + offset;
        for (Op op : ops) {
            now += op.stepMicros();
            List<Policy> policies = new ArrayList<>();
            for (int i = 0; i < keyCount; i++) {
                // bit i of the choice picks key i's policy: policy changes, algorithm changes included
                // and each key its own cost: the first the op's, the others derived from it; a lease a fresh id
                Policy policy = pool.get(2 * i + ((op.policyChoice() >> i) & 1));
                if (policy.algorithm() == Algorithm.CONCURRENCY) {
                    leases.add(new long[]{i, leases.size() + 1});
                    policies.add(Policy.slot(policy.limit(), policy.periodMs(), leases.size()));
                } else {
                    policies.add(policy.withCost(i == 0 ? op.cost() : 1 + (op.cost() + i) % 5));
                }
            }
            switch (op.action()) {
                case CHECK -> {
                    List<Decision> lua = client.check(keys, policies, now);

                    assertThat(memory.check(keys, policies, now)).as("%s at %d", policies, now).isEqualTo(lua);
                }
                case SETTLE -> settleAllBut(Algorithm.CONCURRENCY, keys, policies, op.delta(), now, memory);
                case RELEASE -> {
                    if (leases.isEmpty()) {
                        continue;
                    }
                    long[] lease = leases.get(Math.floorMod(op.delta(), leases.size()));
                    String key = keys.get((int) lease[0]);
                    // a key of another kind (its policy changed since) has no lease to give back
                    boolean released = client.send("TYPE", key).toString().equals("string")
                            ? false
                            : client.release(key, lease[1]);

                    assertThat(memory.releaseSlot(key, lease[1])).as("release of lease %d of %s", lease[1], key)
                            .isEqualTo(released);
                }
            }
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

    /** Settles the keys whose policy is not of {@code skipped}, each by its own delta derived from {@code delta}. */
    private static void settleAllBut(Algorithm skipped, List<String> keys, List<Policy> policies, long delta, long now,
            InMemoryCounters memory) {
        List<String> settledKeys = new ArrayList<>();
        List<Policy> settledPolicies = new ArrayList<>();
        List<Long> deltas = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            if (policies.get(i).algorithm() != skipped) {
                settledKeys.add(keys.get(i));
                settledPolicies.add(policies.get(i));
                deltas.add(Math.max(-Policy.MAX_COST, Math.min(Policy.MAX_COST, delta - 7L * i)));
            }
        }
        if (settledKeys.isEmpty()) {
            return;
        }
        List<Decision> lua = client.settle(settledKeys, settledPolicies, deltas, now);

        assertThat(memory.settle(settledKeys, settledPolicies, deltas, now)).as("%s settling %s at %d",
                settledPolicies, deltas, now).isEqualTo(lua);
    }

    /** The op's action for a key of {@code algorithm}: only a concurrency key releases, and it never settles. */
    private static Action action(Algorithm algorithm, Op op) {
        boolean leases = algorithm == Algorithm.CONCURRENCY;
        return switch (op.action()) {
            case CHECK -> Action.CHECK;
            case SETTLE, RELEASE -> leases ? Action.RELEASE : Action.SETTLE;
        };
    }

    private static Shape shape(Draws d) {
        return new Shape(d.between(1L, 40L), d.of(1L, 3L, 10L, 100L, 250L, 1000L, 7000L, 60_000L, 3_600_000L),
                d.between(1L, 50L));
    }

    /** Six policies, of any algorithm: key i takes the (2i)th or the (2i+1)th. */
    private static List<Policy> policyPool(Draws d) {
        return d.list(6, 6, p -> policy(p.of(Algorithm.class), shape(p)));
    }

    private static long offset(Draws d) {
        return d.between(0, RedisScriptTestBase.DAY_US / 2);
    }

    private static List<Op> ops(Draws d) {
        return d.list(1, 40, ScriptModelPropertyTest::op);
    }

    private static Op op(Draws d) {
        long step = switch (d.weighted(3, 4, 4, 1)) {
            case 0 -> 0L;
            case 1 -> d.between(1L, 2_000L);
            case 2 -> d.between(1L, 3_000_000L);
            default -> d.between(0L, 7_200_000_000L);
        };
        long cost = d.weighted(8, 2) == 0 ? 1L : d.between(2L, 60L);
        int choice = d.between(0, 7);
        Action action = switch (d.weighted(5, 3, 2)) {
            case 0 -> Action.CHECK;
            case 1 -> Action.SETTLE;
            default -> Action.RELEASE;
        };
        // what a request really used less what its check spent: none, a little, a lot, the most a call takes
        long delta = switch (d.weighted(2, 6, 1, 1)) {
            case 0 -> 0L;
            case 1 -> d.between(-60L, 60L);
            case 2 -> d.between(-100_000L, 100_000L);
            default -> d.of(Policy.MAX_COST, -Policy.MAX_COST);
        };
        return new Op(step, cost, choice, action, delta);
    }

    /** The stored value as text and its expiry, e.g. {@code t:8:<since>:<full_at> until 1796256001700}. */
    private static String storedValue(String key) {
        return StoredValues.describeKey(client, key) + " until " + client.send("PEXPIRETIME", key);
    }

    private static Policy policy(Algorithm algorithm, Shape shape) {
        if (algorithm == Algorithm.CALENDAR_WINDOW) {
            // a window that ends within the day after the base moment: the ops start before or after its end
            return Policy.calendarWindow(shape.limit(),
                    RedisScriptTestBase.base() / 1_000_000 + shape.periodMs() % 86_400, 1);
        }
        if (algorithm == Algorithm.CONCURRENCY) {
            // a few slots, so some checks are rejected; each check takes a fresh lease id in place of this one
            return Policy.slot(1 + shape.limit() % 4, shape.periodMs(), 1);
        }
        return new Policy(algorithm, shape.limit(), shape.periodMs(), shape.burst());
    }
}
