package io.tollgate.counter;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

import io.vertx.redis.client.Response;

/**
 * Reads a bucket's stored value (a tag byte, then little-endian doubles; a concurrency key's sorted set of leases)
 * as text for assertions, and writes a reference model's state as the same text.
 */
final class StoredValues {

    private StoredValues() {
    }

    /** E.g. {@code t:8:1796256000500000:1796256001700000}; whole numbers without a decimal point; null when absent. */
    static String describe(Response value) {
        if (value == null) {
            return null;
        }
        ByteBuffer bytes = ByteBuffer.wrap(value.toBytes()).order(ByteOrder.LITTLE_ENDIAN);
        StringJoiner text = new StringJoiner(":");
        text.add(String.valueOf((char) bytes.get()));
        while (bytes.remaining() >= Double.BYTES) {
            text.add(number(bytes.getDouble()));
        }
        return text.toString();
    }

    /**
     * Whatever {@code key} holds, as text: a value as {@link #describe(Response)}, a sorted set of leases as
     * {@code z:<id>@<expiry>:...} in id order; null when absent.
     */
    static String describeKey(ScriptClient client, String key) {
        return switch (client.send("TYPE", key).toString()) {
            case "none" -> null;
            case "zset" -> {
                Map<Long, Long> leases = new TreeMap<>();
                // RESP3 answers [member, score] pairs
                for (Response pair : client.send("ZRANGE", key, "0", "-1", "WITHSCORES")) {
                    leases.put(pair.get(0).toLong(), pair.get(1).toDouble().longValue());
                }
                yield leases(leases);
            }
            default -> describe(client.send("GET", key));
        };
    }

    /** A reference model's state as the text of what the script stores for it; null for none. */
    static String describe(BucketState state) {
        if (state == null) {
            return null;
        } else if (state instanceof TokenBucketModel.State s) {
            return text('t', s.tokens(), s.since(), s.fullAt());
        } else if (state instanceof GcraModel.State s) {
            return text('g', s.since(), s.debt(), s.interval(), s.burst());
        } else if (state instanceof FixedWindowModel.State s) {
            return text('f', s.windowEnd(), s.count());
        } else if (state instanceof CalendarWindowModel.State s) {
            return text('c', s.windowEnd(), s.count());
        } else if (state instanceof SlidingWindowModel.State s) {
            return text('s', s.windowStart(), s.period(), s.previous(), s.current());
        } else if (state instanceof ConcurrencyModel.State s) {
            return leases(new TreeMap<>(s.slots()));
        }
        throw new IllegalArgumentException("no text for " + state);
    }

    /**
     * The key expiry the script writes for a model's state, in Unix ms ({@code PEXPIRETIME}): the state's own,
     * but for GCRA, whose state counts a microsecond longer than the key lives.
     */
    static long expiryMs(BucketState state) {
        if (state instanceof GcraModel.State s) {
            return (long) Math.min(Math.ceil((s.since() + s.debt()) / 1000), BucketState.FAR_MS);
        }
        return state.expiresAtMs();
    }

    private static String text(char tag, double... numbers) {
        StringJoiner text = new StringJoiner(":");
        text.add(String.valueOf(tag));
        for (double number : numbers) {
            text.add(number(number));
        }
        return text.toString();
    }

    private static String leases(Map<Long, Long> leases) {
        StringJoiner text = new StringJoiner(":");
        text.add("z");
        leases.forEach((id, expiry) -> text.add(id + "@" + expiry));
        return text.toString();
    }

    private static String number(double number) {
        return number == Math.rint(number) ? Long.toString((long) number) : Double.toString(number);
    }
}
