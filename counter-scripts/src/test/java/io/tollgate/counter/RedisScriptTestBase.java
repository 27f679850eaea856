package io.tollgate.counter;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.tollgate.counter.testing.RedisNode;

/** One private Redis and one client per test class; helpers for a fixed, explicit clock. */
abstract class RedisScriptTestBase {

    /** A day in microseconds: bases are aligned to it, so every window of these tests starts at base. */
    static final long DAY_US = 86_400_000_000L;

    static RedisNode redis;
    static ScriptClient client;

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
     * A whole-day Unix time in microseconds, a day or so ahead of the real clock: expiries are absolute
     * (PXAT), so keys written at this explicit now stay while the test runs.
     */
    static long base() {
        long realMicros = System.currentTimeMillis() * 1000;
        return (realMicros / DAY_US + 2) * DAY_US;
    }

    /** A key of its own for each use. */
    static String freshKey(String client) {
        return CounterKeys.key("t-" + UUID.randomUUID(), client);
    }

    static Decision check(String key, Policy policy, long cost, long nowMicros) {
        return client.check(List.of(key), List.of(policy), cost, nowMicros).get(0);
    }

    /** Settles one key by {@code delta}. */
    static Decision settle(String key, Policy policy, long delta, long nowMicros) {
        return client.settle(List.of(key), List.of(policy), List.of(delta), nowMicros).get(0);
    }

    /** The key's expiry in Unix ms, -1 without one, -2 when absent. */
    static long expiryMs(String key) {
        return client.send("PEXPIRETIME", key).toLong();
    }

    /** The stored value as text, e.g. {@code t:8:<since>:<full_at>}; null when absent. */
    static String stored(String key) {
        return StoredValues.describe(client.send("GET", key));
    }
}
