package io.tollgate.gateway.limiter.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Policy;

/**
 * The lease bound over the reference simulation ({@link LeaseFleet}), for many seeded runs of random fleets,
 * buckets, demands and interleavings of requests, quiet returns, expiries and gateway deaths.
 */
class LeaseBoundTest {

    private static final Logger LOG = Logger.getLogger(LeaseBoundTest.class);
    private static final int RUNS = 400;
    private static final long RUN_MICROS = 10_000_000;

    /** One run's shape; {@code demand} in multiples of the bucket's rate, in tokens. */
    private record Run(long seed, Policy policy, int gateways, double demand, boolean deaths, boolean pauses) {

        boolean flood() {
            return demand >= 2 && !pauses;
        }
    }

    @Test
    void noInterleavingAdmitsAboveTheCeilingNorLosesMoreThanTheDeadHeldNorStrandsTokens() {
        double worstShare = Double.MAX_VALUE;
        long requests = 0;
        long calls = 0;
        for (long seed = 1; seed <= RUNS; seed++) {
            Run run = shape(seed);
            Random random = new Random(seed * 7919);
            LeaseFleet fleet = new LeaseFleet(run.policy(), run.gateways());
            long end = simulate(run, fleet, random);
            requests += fleet.requests();
            calls += fleet.storeCalls();
            double ceiling = fleet.ceiling(end);
            fleet.returnAll(end);
            String what = run + " admitted " + fleet.admittedTokens() + " of ceiling " + ceiling;
            // (a) is asserted at every admission by the fleet; here once more at the end
            assertThat((double) fleet.admittedTokens()).as(what).isLessThanOrEqualTo(ceiling + 1e-6);
            // (b) a dead gateway loses at most what its lease held
            assertThat(fleet.lostTokens()).as(what).isLessThanOrEqualTo(fleet.heldAtDeath());
            if (!run.deaths()) {
                // (c) every leased token is admitted or given back
                assertThat(fleet.lostTokens()).as(what).isZero();
            }
            if (run.flood()) {
                double share = (fleet.admittedTokens() + fleet.heldAtDeath()) / ceiling;
                assertThat(share).as(what).isGreaterThanOrEqualTo(0.99);
                worstShare = Math.min(worstShare, share);
            }
        }
        LOG.infof(
                "%d runs: worst share of the ceiling admitted in a flood %.4f, store calls per request %.3f", RUNS,
                worstShare, (double) calls / requests);
    }

    /** Requests at random live gateways; now and then a quiet return, a pause, a death. The last request's time. */
    private static long simulate(Run run, LeaseFleet fleet, Random random) {
        Policy policy = run.policy();
        double perMicro = run.demand() * policy.limit() / (policy.periodMs() * 1000.0 * policy.cost());
        double[] weights = new double[run.gateways()];
        for (int g = 0; g < weights.length; g++) {
            weights[g] = 0.2 + random.nextDouble();
        }
        long now = 0;
        long last = 0;
        while (now < RUN_MICROS) {
            int g = pick(fleet, weights, random);
            fleet.request(g, now);
            last = now;
            double roll = random.nextDouble();
            if (roll < 0.02) {
                fleet.returnIfOver(pick(fleet, weights, random), now);
            } else if (roll < 0.0205 && run.deaths() && fleet.liveCount() > 1) {
                fleet.kill(pick(fleet, weights, random));
            } else if (roll < 0.0215 && run.pauses()) {
                now += (long) (random.nextDouble() * 2_000_000); // longer than any lease
            }
            now += 1 + (long) (-Math.log(1 - random.nextDouble()) / perMicro);
        }
        return last;
    }

    private static Run shape(long seed) {
        Random random = new Random(seed);
        Algorithm algorithm = random.nextBoolean() ? Algorithm.TOKEN_BUCKET : Algorithm.GCRA;
        long periodMs = random.nextBoolean() ? 1000 : 10_000;
        long perSecond = 100 + random.nextInt(901);
        long cost = 1 + random.nextInt(3);
        long burst = Math.max(cost, (long) (perSecond * (0.05 + 1.95 * random.nextDouble())));
        Policy policy = new Policy(algorithm, perSecond * periodMs / 1000, periodMs, burst, cost);
        double demand = random.nextBoolean() ? 2 + 2 * random.nextDouble() : 0.1 + 1.9 * random.nextDouble();
        return new Run(seed, policy, 1 + random.nextInt(5), demand, random.nextBoolean(),
                random.nextInt(3) == 0);
    }

    /** A live gateway, by weight. */
    private static int pick(LeaseFleet fleet, double[] weights, Random random) {
        double total = 0;
        for (int g = 0; g < weights.length; g++) {
            total += fleet.alive(g) ? weights[g] : 0;
        }
        double at = random.nextDouble() * total;
        for (int g = 0; g < weights.length; g++) {
            if (fleet.alive(g)) {
                at -= weights[g];
                if (at < 0) {
                    return g;
                }
            }
        }
        throw new IllegalStateException("no live gateway");
    }
}
