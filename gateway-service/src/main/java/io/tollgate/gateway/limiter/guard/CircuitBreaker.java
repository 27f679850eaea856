package io.tollgate.gateway.limiter.guard;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

/**
 * Stops calling a dead store: when at least {@code failureRate} of the last {@code window} checks failed it
 * opens, and every check goes straight to its failure mode (no timeout paid per request); after
 * {@code openForNanos} one probe goes through; its success closes the breaker, its failure opens it again.
 * Each transition is logged once.
 * <p>
 * A share of a window, not a run of consecutive failures: when one shard of a Redis Cluster dies, about a
 * third of the checks fail until its replica takes over, and a run of five failures comes within
 * milliseconds; a breaker that opened then would fail EVERY client, those on healthy shards too. A dead
 * store fails every check and fills the window at once.
 * <p>
 * Written here rather than taken from SmallRye Fault Tolerance: the breaker must sit inside one Vert.x future
 * chain shared by rules with different fallbacks, expose its state as a gauge and log transitions, and a
 * small state machine says that more plainly than annotations on a CDI method would.
 */
public final class CircuitBreaker {

    private static final Logger LOG = Logger.getLogger(CircuitBreaker.class);

    /** The breaker's states; the ordinal is the value of the state gauge. */
    enum State {
        CLOSED, OPEN, HALF_OPEN
    }

    private final boolean[] outcomes;
    private final int threshold;
    private final long openForNanos;
    private final LongSupplier nanoClock;
    private final AtomicReference<State> state = new AtomicReference<>(State.CLOSED);
    private int next;
    private int failures;
    private volatile long openedAtNanos;

    /** @param failureRate the share of failed checks in the window that opens the breaker, in (0, 1] */
    public CircuitBreaker(int window, double failureRate, long openForNanos, LongSupplier nanoClock) {
        this.outcomes = new boolean[Math.max(1, window)];
        this.threshold = Math.max(1, (int) Math.ceil(outcomes.length * failureRate));
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
        if (state.get() != State.CLOSED) {
            forget();
            transition(state.get(), State.CLOSED, "counter store answers again: breaker closed");
        } else {
            record(false);
        }
    }

    void failed() {
        if (state.get() == State.HALF_OPEN) {
            open(State.HALF_OPEN);
        } else if (record(true) >= threshold && state.get() == State.CLOSED) {
            open(State.CLOSED);
        }
    }

    /** Slides the window by one outcome; returns the failures now in it. */
    private synchronized int record(boolean failed) {
        if (outcomes[next] != failed) {
            failures += failed ? 1 : -1;
            outcomes[next] = failed;
        }
        next = (next + 1) % outcomes.length;
        return failures;
    }

    private synchronized void forget() {
        java.util.Arrays.fill(outcomes, false);
        failures = 0;
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
