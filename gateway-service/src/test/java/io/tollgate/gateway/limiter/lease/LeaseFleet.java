package io.tollgate.gateway.limiter.lease;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.counter.Decision;
import io.tollgate.counter.InMemoryCounters;
import io.tollgate.counter.Policy;

/**
 * The reference simulation of leases: gateways leasing one client's bucket from one store ({@link InMemoryCounters},
 * the check script's model), on one explicit clock. A gateway admits from its lease while it can; otherwise one
 * store call gives back what its lease has left (a settlement) and takes the next lease as a check of cost k, or
 * checks the request alone when the planner says no lease or the take is refused (then a second call). It keeps
 * the ledger the bound is asserted on: tokens admitted, leased, admitted from leases, given back, lost with dead
 * gateways.
 */
final class LeaseFleet {

    /** Unix microseconds of the simulation's time 0: the store writes absolute expiries. */
    private static final long BASE_MICROS = 1_700_000_000_000_000L;
    private static final String KEY = "rl:lease.sim:{client}";

    /** One gateway's view of the bucket. */
    private static final class Gateway {

        final LocalRate rate = new LocalRate();
        Lease lease;
        /** What the store last said remains; 0 before any answer (no lease before the store has spoken). */
        long word;
        boolean alive = true;
    }

    private final InMemoryCounters store = new InMemoryCounters();
    private final Policy policy;
    private final List<Gateway> gateways = new ArrayList<>();
    private long firstMicros = -1;
    private long requests;
    private long admitted;
    private long admittedTokens;
    private long storeCalls;
    private long leasedTokens;
    private long fromLeases;
    private long returned;
    private long heldAtDeath;

    LeaseFleet(Policy policy, int gateways) {
        this.policy = policy;
        for (int i = 0; i < gateways; i++) {
            this.gateways.add(new Gateway());
        }
    }

    /** A request of the client at gateway {@code g} at {@code nowMicros}: whether it passed. */
    boolean request(int g, long nowMicros) {
        Gateway gateway = live(g);
        long nowNanos = nowMicros * 1000;
        long cost = policy.cost();
        if (firstMicros < 0) {
            firstMicros = nowMicros;
        }
        requests++;
        gateway.rate.arrived(nowNanos);
        if (gateway.lease != null && gateway.lease.tryTake(cost, nowNanos)) {
            fromLeases += cost;
            return admit(nowMicros);
        }
        storeCalls++;
        giveBack(gateway, nowMicros);
        LeasePlanner.Plan plan = LeasePlanner.plan(policy, gateway.word, liveCount(), gateway.rate.perSecondBefore(nowNanos),
                nowNanos);
        if (plan.leases()) {
            Decision take = check(plan.tokens(), nowMicros);
            gateway.word = take.remaining();
            if (take.allowed()) {
                leasedTokens += plan.tokens();
                gateway.lease = new Lease(plan.tokens(), take.remaining(), plan.expiresAtNanos());
                if (!gateway.lease.tryTake(cost, nowNanos)) {
                    throw new AssertionError("a fresh lease of " + plan.tokens() + " refused a request of " + cost);
                }
                fromLeases += cost;
                return admit(nowMicros);
            }
            storeCalls++; // refused: the store had less than the word said; the request is checked alone
        }
        Decision alone = check(cost, nowMicros);
        gateway.word = alone.remaining();
        return alone.allowed() && admit(nowMicros);
    }

    /** Gateway {@code g}'s client goes quiet: an expired lease's leftover goes back in one call. */
    void returnIfOver(int g, long nowMicros) {
        Gateway gateway = live(g);
        if (gateway.lease != null && gateway.lease.over(nowMicros * 1000) && giveBack(gateway, nowMicros) > 0) {
            storeCalls++;
        }
    }

    /** Every live gateway gives back what it holds. */
    void returnAll(long nowMicros) {
        for (Gateway gateway : gateways) {
            if (gateway.alive && giveBack(gateway, nowMicros) > 0) {
                storeCalls++;
            }
        }
    }

    /** Gateway {@code g} dies: what its lease holds is lost, never given back. */
    void kill(int g) {
        Gateway gateway = live(g);
        gateway.alive = false;
        if (gateway.lease != null) {
            heldAtDeath += gateway.lease.left();
        }
    }

    boolean alive(int g) {
        return gateways.get(g).alive;
    }

    int liveCount() {
        return (int) gateways.stream().filter(gateway -> gateway.alive).count();
    }

    /** The most the bucket can have let through by {@code nowMicros}: burst plus refill since the first request. */
    double ceiling(long nowMicros) {
        double perMicro = policy.limit() / (policy.periodMs() * 1000.0);
        return policy.burst() + perMicro * Math.max(0, nowMicros - firstMicros);
    }

    /** What the bucket holds at {@code nowMicros}, as the store would answer. */
    long bucketRemaining(long nowMicros) {
        return store.peek(KEY, policy, BASE_MICROS + nowMicros).remaining();
    }

    long requests() {
        return requests;
    }

    long admitted() {
        return admitted;
    }

    long admittedTokens() {
        return admittedTokens;
    }

    /** Tokens the store spent for leases. */
    long leasedTokens() {
        return leasedTokens;
    }

    long storeCalls() {
        return storeCalls;
    }

    /** Tokens the store spent for leases that were neither admitted nor given back. */
    long lostTokens() {
        return leasedTokens - fromLeases - returned;
    }

    /** What the dead gateways' leases held when they died. */
    long heldAtDeath() {
        return heldAtDeath;
    }

    private boolean admit(long nowMicros) {
        admitted++;
        admittedTokens += policy.cost();
        double ceiling = ceiling(nowMicros);
        if (admittedTokens > ceiling + 1e-6) {
            throw new AssertionError("admitted " + admittedTokens + " tokens at " + nowMicros + " µs, over the ceiling "
                    + ceiling + " of " + policy);
        }
        return true;
    }

    /** Gives back what the gateway's lease has left, if anything: the tokens given back. */
    private long giveBack(Gateway gateway, long nowMicros) {
        long back = gateway.lease == null ? 0 : gateway.lease.leftover();
        gateway.lease = null;
        if (back > 0) {
            returned += back;
            gateway.word = store.settle(List.of(KEY), List.of(policy), List.of(-back), BASE_MICROS + nowMicros).get(0)
                    .remaining();
        }
        return back;
    }

    private Decision check(long cost, long nowMicros) {
        return store.check(List.of(KEY), List.of(policy), cost, BASE_MICROS + nowMicros).get(0);
    }

    private Gateway live(int g) {
        Gateway gateway = gateways.get(g);
        if (!gateway.alive) {
            throw new IllegalStateException("gateway " + g + " is dead");
        }
        return gateway;
    }
}
