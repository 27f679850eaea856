package io.tollgate.e2e;

import java.util.Map;

import io.tollgate.e2e.support.Stack;

/**
 * One stack of 3 gateways shared by the tests that only send traffic (each uses its own rule ids and keys);
 * tests that kill parts start a stack of their own. Stopped when the test JVM exits.
 */
final class SharedStack {

    private static Stack stack;

    private SharedStack() {
    }

    static synchronized Stack get() {
        if (stack == null) {
            stack = Stack.start(3, Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(stack::close));
        }
        return stack;
    }
}
