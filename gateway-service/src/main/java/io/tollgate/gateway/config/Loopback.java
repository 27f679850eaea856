package io.tollgate.gateway.config;

/** Where this process reaches a server of its own that listens on a configured host. */
public final class Loopback {

    private Loopback() {
    }

    /**
     * The address that reaches a server bound to {@code bindHost}: loopback for the wildcard addresses (a server
     * on every address is on loopback too), the host itself otherwise. IPv6 comes bare ({@code ::1}).
     */
    public static String hostFor(String bindHost) {
        return switch (bindHost) {
            case "0.0.0.0" -> "127.0.0.1";
            case "::", "[::]" -> "::1";
            default -> bindHost;
        };
    }
}
