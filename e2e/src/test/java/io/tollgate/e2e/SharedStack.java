package io.tollgate.e2e;

import java.time.Duration;
import java.util.Map;

import io.tollgate.e2e.support.Stack;
import io.tollgate.grpc.interop.InteropProtos;
import io.tollgate.grpc.interop.InteropServer;

/**
 * One stack of 3 gateways shared by the tests that only send traffic or write rules (each uses its own rule ids and
 * keys); tests that kill parts start a stack of their own. Its gateways reach the rules service through a
 * {@link io.tollgate.e2e.support.WatchCutter} and poll every {@link #POLL}, so a test may cut the watch stream for a
 * while (and restore it, in a {@code finally}) to see what the poll alone brings. Beside it, grpc's interop service
 * ({@link InteropServer}, in this JVM), which the gateways route {@code /grpc.testing.TestService/} and
 * {@code /grpc.testing.UnimplementedService/} to, as a user routes a gRPC service: in the environment. Stopped when
 * the test JVM exits.
 */
final class SharedStack {

    /** The gateways' poll interval. */
    static final Duration POLL = Duration.ofSeconds(3);

    private static Stack stack;
    private static InteropServer interop;

    private SharedStack() {
    }

    static synchronized Stack get() {
        if (stack == null) {
            try {
                interop = new InteropServer();
            } catch (Exception e) {
                throw new IllegalStateException("grpc's interop service did not start", e);
            }
            String url = "h2c://127.0.0.1:" + interop.port();
            try {
                stack = Stack.withCuttableWatch(3, Map.of("TOLLGATE_RULES_POLL_INTERVAL", POLL.toSeconds() + "s",
                        "TOLLGATE_GATEWAY_ROUTES_INTEROP_PREFIX", "/" + InteropProtos.SERVICE + "/",
                        "TOLLGATE_GATEWAY_ROUTES_INTEROP_URL", url,
                        "TOLLGATE_GATEWAY_ROUTES_UNIMPLEMENTED_PREFIX", "/grpc.testing.UnimplementedService/",
                        "TOLLGATE_GATEWAY_ROUTES_UNIMPLEMENTED_URL", url));
            } catch (RuntimeException | Error e) {
                closeInterop();
                throw e;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stack.close();
                closeInterop();
            }));
        }
        return stack;
    }

    private static void closeInterop() {
        try {
            interop.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The port of the interop service the shared stack's gateways route to, for calls made to it direct. */
    static synchronized int interopPort() {
        get();
        return interop.port();
    }
}
