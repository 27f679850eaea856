package io.tollgate.counter;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The KEYS and ARGV of one call of the {@code peek} script and the parser of its reply. Peek takes the arguments
 * of {@code check} ({@link CheckCall} owns their layout), whose costs it reads but never spends.
 *
 * @param call
 * the arguments, as a check of the same buckets
 */
public record PeekCall(CheckCall call) {

    /** Three integers per key: exists, remaining, reset_ms. */
    private static final int PER_KEY = 3;

    /**
     * The call that reads buckets {@code keys[i]} under {@code policies[i]}.
     *
     * @param nowMicros
     * explicit Unix time in microseconds (tests); empty lets Redis use its {@code TIME}, as production must
     */
    public static PeekCall of(List<String> keys, List<Policy> policies, OptionalLong nowMicros) {
        return new PeekCall(CheckCall.of(keys, policies, nowMicros));
    }

    /** The arguments of {@code EVALSHA} of {@link CounterScripts#peek} after the SHA-1: numkeys, KEYS, ARGV. */
    public List<String> evalArgs() {
        return call.evalArgs();
    }

    /** One peek per key, in key order, from the script's flat reply of 3 x N integers. */
    public List<Peek> parse(List<Long> reply) {
        if (reply.size() != PER_KEY * call.keys().size()) {
            throw new IllegalArgumentException(
                    "peek replied " + reply.size() + " integers for " + call.keys().size() + " keys: " + reply);
        }
        List<Peek> peeks = new ArrayList<>(call.keys().size());
        for (int i = 0; i < reply.size(); i += PER_KEY) {
            peeks.add(new Peek(reply.get(i) == 1, reply.get(i + 1), reply.get(i + 2)));
        }
        return peeks;
    }
}
