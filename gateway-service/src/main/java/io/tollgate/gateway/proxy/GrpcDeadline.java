package io.tollgate.gateway.proxy;

import java.util.concurrent.TimeUnit;

/**
 * A gRPC call's deadline, as its {@code grpc-timeout} header says it: 1 to 8 digits and a unit ({@code H}ours,
 * {@code M}inutes, {@code S}econds, {@code m}illis, {@code u}micros, {@code n}anos). The header is passed on to the
 * upstream as it came; the gateway also waits for the answer's head no longer than the deadline, so a call whose
 * backend is silent ends with {@code DEADLINE_EXCEEDED} when the client stops waiting, not at the gateway's own
 * {@code upstream-timeout}.
 */
final class GrpcDeadline {

    static final String HEADER = "grpc-timeout";

    private GrpcDeadline() {
    }

    /**
     * The deadline in milliseconds (at least 1: a deadline under a millisecond has as good as passed), or -1 when
     * {@code value} is absent or not a {@code grpc-timeout}: the gateway then waits as for any request, and the
     * upstream judges the header.
     */
    static long millis(String value) {
        if (value == null || value.length() < 2 || value.length() > 9) {
            return -1;
        }
        long amount = 0;
        for (int i = 0; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            amount = amount * 10 + (c - '0');
        }
        TimeUnit unit = switch (value.charAt(value.length() - 1)) {
            case 'H' -> TimeUnit.HOURS;
            case 'M' -> TimeUnit.MINUTES;
            case 'S' -> TimeUnit.SECONDS;
            case 'm' -> TimeUnit.MILLISECONDS;
            case 'u' -> TimeUnit.MICROSECONDS;
            case 'n' -> TimeUnit.NANOSECONDS;
            default -> null;
        };
        return unit == null ? -1 : Math.max(1, unit.toMillis(amount));
    }
}
