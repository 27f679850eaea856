package io.tollgate.gateway.http;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Requests the gateway refuses before any rule is checked, or because a rule cannot tell who is calling, and
 * connections it closes unserved: {@code tollgate_refused_total{reason}}, and a WARN line per reason at most once a
 * minute (a client that sends such requests by the thousand costs the log one line a minute); a refused connection's
 * line is its penalty's ({@link FloodGuard}).
 */
@ApplicationScoped
class Refusals {

    private static final Logger LOG = Logger.getLogger(Refusals.class);
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    /** Why a request was refused; the label is the problem type and the metric's {@code reason}. */
    enum Reason {

        BAD_PATH("bad-path", 400), BAD_METHOD("bad-method", 400), AMBIGUOUS_CLIENT("ambiguous-client",
                400), MISSING_KEY("missing-key", 401), BAD_CONNECTION("bad-connection", 400), BAD_HANDSHAKE(
                        "bad-handshake", 400), BAD_FRAMING("bad-framing", 400), UNKNOWN_CODING(
                                "unknown-transfer-coding",
                                501), AMBIGUOUS_HOST("ambiguous-host",
                                        400), BAD_HEADER("bad-header", 400), BAD_HOST("bad-host", 400),
        /** A connection of a peer under a penalty for flooding, closed at its first request: no answer, no status. */
        REPEAT_OFFENDER("repeat-offender", 0);

        final String label;
        final int status;

        Reason(String label, int status) {
            this.label = label;
            this.status = status;
        }

        /**
         * Whether the connection closes after the answer: the request's end (its framing, its authority) cannot be
         * read one way only, so neither can what follows it on the connection (RFC 9112 §6.1, §6.3).
         */
        boolean closes() {
            return this == BAD_FRAMING || this == UNKNOWN_CODING || this == AMBIGUOUS_HOST;
        }
    }

    /** A refusal decided by reading a request: its reason, and a detail for the client and the log. */
    record Refusal(Reason reason, String detail) {
    }

    private final Map<Reason, Counter> counters = new EnumMap<>(Reason.class);
    private final Map<Reason, AtomicLong> lastWarned = new EnumMap<>(Reason.class);

    Refusals(MeterRegistry registry) {
        for (Reason reason : Reason.values()) {
            counters.put(reason, Counter.builder("tollgate.refused")
                    .description("requests refused before the backend because the gateway could not read them safely, "
                            + "and connections closed unserved")
                    .tag("reason", reason.label)
                    .register(registry));
            lastWarned.put(reason, new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS));
        }
    }

    /** Counts a refusal; logs it when this reason was not logged in the last minute. */
    void count(Reason reason, String method, String path, String detail) {
        counters.get(reason).increment();
        AtomicLong last = lastWarned.get(reason);
        long now = System.nanoTime();
        long before = last.get();
        if (now - before >= WARN_EVERY_NANOS && last.compareAndSet(before, now)) {
            LOG.warnf("refused %s (%s) %s %s: %s; tollgate_refused_total counts every one, this line comes at most "
                    + "once a minute", reason.label, reason.status, method, abbreviated(path), detail);
        }
    }

    /** Counts a refused connection; its log line is its penalty's, once. */
    void countConnection(Reason reason) {
        counters.get(reason).increment();
    }

    /** A hostile path may be long: the log takes its start. */
    private static String abbreviated(String path) {
        return path == null || path.length() <= 200 ? path : path.substring(0, 200) + "...";
    }
}
