package io.tollgate.gateway.limiter;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

/**
 * Stops calling a dead store: after {@code threshold} consecutive failures it opens and every check goes
 * straight to its failure mode (no timeout paid per request); after {@code openForNanos} one probe goes
 * through; its success closes the breaker, its failure opens it again. Lock-free; each transition is
 * logged once.
 * <p>
 * Written here rather than taken from SmallRye Fault Tolerance: the breaker must sit inside one Mutiny
 * chain shared by rules with different fallbacks, expose its state as a gauge and log transitions, and a
 * 60-line state machine says that more plainly than annotations on a CDI method would.
 */
final class CircuitBreaker {

    private static final Logger LOG = Logger.getLogger(CircuitBreaker.class);

    /** The breaker's states; the ordinal is the value of the state gauge. */
    enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private final int threshold;
    private final long openForNanos;
    private final LongSupplier nanoClock;
    private final AtomicReference<State> state = new AtomicReference<>(State.CLOSED);
    private final AtomicInteger failures = new AtomicInteger();
    private volatile long openedAtNanos;

    CircuitBreaker(int threshold, long openForNanos, LongSupplier nanoClock) {
        this.threshold = Math.max(1, threshold);
        this.openForNanos = openForNanos;
        this.nanoClock = nanoClock;
    }

    State state() {
        return state.get();
    }

    /** Whether a check may call the store now; in the open state only the one probe after the wait may. */
    boolean allowsCall() {
        State s = state.get();
        if (s == State.CLOSED) {
            return true;
        }
        if (s == State.OPEN && nanoClock.getAsLong() - openedAtNanos >= openForNanos) {
            return transition(State.OPEN, State.HALF_OPEN, "probing the counter store");
        }
        return false;
    }

    void succeeded() {
        failures.set(0);
        if (state.get() != State.CLOSED) {
            transition(state.get(), State.CLOSED, "counter store answers again: breaker closed");
        }
    }

    void failed() {
        if (state.get() == State.HALF_OPEN) {
            open(State.HALF_OPEN);
        } else if (failures.incrementAndGet() >= threshold && state.get() == State.CLOSED) {
            open(State.CLOSED);
        }
    }

    private void open(State from) {
        openedAtNanos = nanoClock.getAsLong();
        transition(from, State.OPEN, "counter store failing: breaker open, failure modes decide without calling it");
    }

    private boolean transition(State from, State to, String why) {
        if (!state.compareAndSet(from, to)) {
            return false;
        }
        if (to == State.HALF_OPEN) {
            LOG.debug(why);
        } else if (to == State.OPEN && from == State.HALF_OPEN) {
            LOG.debug("probe failed: breaker open again");
        } else {
            LOG.warn(why);
        }
        return true;
    }
}
