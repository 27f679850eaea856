package io.tollgate.e2e;

import java.time.Duration;
import java.util.Map;

import io.tollgate.e2e.support.Stack;

/**
 * One stack of 3 gateways shared by the tests that only send traffic or write rules (each uses its own rule ids and
 * keys); tests that kill parts start a stack of their own. Its gateways reach the rules service through a
 * {@link io.tollgate.e2e.support.WatchCutter} and poll every {@link #POLL}, so a test may cut the watch stream for a
 * while (and restore it, in a {@code finally}) to see what the poll alone brings. Stopped when the test JVM exits.
 */
final class SharedStack {

    /** The gateways' poll interval. */
    static final Duration POLL = Duration.ofSeconds(3);

    private static Stack stack;

    private SharedStack() {
    }

    static synchronized Stack get() {
        if (stack == null) {
            stack = Stack.withCuttableWatch(3, Map.of("TOLLGATE_RULES_POLL_INTERVAL", POLL.toSeconds() + "s"));
            Runtime.getRuntime().addShutdownHook(new Thread(stack::close));
        }
        return stack;
    }
}
