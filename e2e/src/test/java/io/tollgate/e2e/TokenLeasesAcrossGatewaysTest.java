package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.tollgate.e2e.support.Burst;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Flood;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.Metrics;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * Token leases (docs/leases.md) over three packaged gateways, leases on as they ship: a flood gets no more than its
 * bucket and strands none of it; a client well under its limit costs the store a few calls for hundreds of
 * requests; a lowered limit admits nothing from a lease taken under the old one; a gateway killed while holding a
 * lease costs the client that lease at most, and the fleet never over-admits. A stack of its own: it kills a
 * gateway, and its counts of store calls must be its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TokenLeasesAcrossGatewaysTest {

    private static final Logger LOG = Logger.getLogger(TokenLeasesAcrossGatewaysTest.class);
    private static final int GATEWAYS = 3;
    /** Client threads of a flood: enough to send several times the floods' limits on two cores. */
    private static final int FLOODERS = 16;
    private static final String STORE_CALLS = "tollgate_store_latency_seconds_count";

    @AutoClose
    private static Stack stack;
    /**
     * The flood's limit a second (burst the same), sized from the rate the warm-up reached: the flood must send
     * several times its limit for leases to matter, and a slower machine gets a smaller limit, not a failed test.
     */
    private static long floodLimit;

    @BeforeAll
    static void start() {
        stack = Stack.start(GATEWAYS, Map.of());
        // fresh JVMs on two cores answer a flood at a fraction of their warm rate: the first measured flood
        // must send several times its limit, so every path it takes runs hot first
        String rule = "lease.warm";
        String key = limited(rule, "/lease-warm/", 100, "1s", 100);
        Flood.Result warm = flood("/lease-warm/", key, Duration.ofSeconds(3));
        double warmRate = warm.answers().size() / 3.0;
        floodLimit = Math.max(10, Math.min(100, (long) (warmRate / 4)));
        LOG.infof("warm-up: %d requests in 3 s (%.0f/s), %s; the flood's limit: %d/s", warm.answers().size(),
                warmRate, warm.statuses(), floodLimit);
    }

    @Test
    @Order(1)
    void aFloodOverThreeGatewaysGetsItsBucketAndStrandsNone() {
        String rule = "lease.flood";
        long limit = floodLimit; // per second, burst the same
        String path = "/lease-flood/";
        String key = limited(rule, path, limit, "1s", limit);
        List<Metrics> before = Metrics.ofEach(stack.gateways());

        Flood.Result result = flood(path, key, Duration.ofSeconds(10));

        List<Metrics> after = Metrics.ofEach(stack.gateways());
        long ceiling = result.ceiling(limit, limit);
        long floor = result.floor(limit, limit);
        double leased = since(after, before, "tollgate_decisions_total", "rule=" + rule, "outcome=leased");
        double seconds = (result.lastAnsweredNanos() - result.firstSentNanos()) / 1e9;
        LOG.infof("flood: %d requests in %.2f s (%.0f/s, limit %d/s): %s; allowed %d, ceiling %d, floor %d (%.1f %%)%n"
                + "  %s", result.answers().size(), seconds, result.answers().size() / seconds, limit,
                result.statuses(), result.allowed(), ceiling, floor, 100.0 * result.allowed() / floor,
                leaseFigures(rule, before, after, result.answers().size(), result.allowed()));

        assertThat(result.statuses().keySet()).as("answers by status %s", result.statuses()).isSubsetOf(200, 429);
        assertThat(result.allowed()).as("allowed: burst %d + %d/s over %.2f s", limit, limit, seconds)
                .isLessThanOrEqualTo((int) ceiling);
        assertThat(result.mostAhead(limit, limit, result.firstSentNanos()))
                .as("allowed answers ahead of the bucket at their moment").isLessThanOrEqualTo(0);
        assertThat((double) result.allowed()).as("allowed, against the tokens the bucket surely had (%d)", floor)
                .isGreaterThanOrEqualTo(0.99 * floor);
        assertThat(leased).as("requests admitted from leases").isGreaterThan(0);
        assertThat(stack.backendHits(key)).as("the backend saw the allowed requests").isEqualTo(result.allowed());
    }

    /**
     * The traffic: one client sending from four connections at up to 600 requests a second together, a third of its
     * limit or less, each request to the next gateway in turn (a balancer spreading one client's calls), so that
     * every gateway sees it busy, at up to 200 a second.
     */
    @Test
    @Order(2)
    void aClientWellUnderItsLimitCostsTheStoreAFewCalls() {
        int requests = 1200;
        long intervalNanos = 1_000_000_000L / 600;
        String rule = "lease.steady";
        long limit = 100_000; // a minute, burst the same
        String path = "/lease-steady/";
        String key = limited(rule, path, limit, "1m", limit);
        List<Metrics> before = Metrics.ofEach(stack.gateways());

        AtomicLong started = new AtomicLong();
        Burst.Result result = Burst.send(requests, 4, i -> {
            started.compareAndSet(0, System.nanoTime());
            LockSupport.parkNanos(started.get() + i * intervalNanos - System.nanoTime()); // the client's pace
            return stack.call(i % GATEWAYS, "GET", path + i, key);
        });

        List<Metrics> after = Metrics.ofEach(stack.gateways());
        double storeCalls = since(after, before, STORE_CALLS);
        double seconds = result.elapsed().toNanos() / 1e9;
        LOG.infof("steady: %d requests in %.2f s (%.0f/s, limit %d/min), %s; allowed %d%n  %s", requests, seconds,
                requests / seconds, limit, result.statuses(), result.allowed(),
                leaseFigures(rule, before, after, requests, result.allowed()));
        assertThat(result.statuses()).as("answers by status").containsExactly(Map.entry(200, requests));
        assertThat(storeCalls / requests).as("store calls per request (%.0f for %d)", storeCalls, requests)
                .isLessThan(0.05);
    }

    @Test
    @Order(3)
    void aLimitLoweredMidFloodAdmitsNothingFromAnOldLease() {
        String rule = "lease.cut";
        String path = "/lease-cut/";
        long lowered = 10; // a second, burst the same
        String key = limited(rule, path, 100_000, "1m", 100_000);
        List<Metrics> before = Metrics.ofEach(stack.gateways());

        long changedEverywhere;
        double heldAtChange;
        Flood.Result result;
        try (Flood flood = Flood.start(FLOODERS, GATEWAYS, (g, i) -> stack.call(g, "GET", path + i, key))) {
            await("every gateway leases the key").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Metrics.ofEach(stack.gateways()).stream()
                            .allMatch(m -> m.sum("tollgate_leases_taken_total", "rule=" + rule) > 0));
            heldAtChange = total(Metrics.ofEach(stack.gateways()), "tollgate_leases_tokens_held");
            stack.putRule(rule, Rules.perApiKey(rule, path + "**", lowered, "1s", lowered, "closed"));
            Fleet.awaitQuotaEverywhere(stack, rule, path + "probe", lowered, Duration.ofSeconds(10));
            changedEverywhere = System.nanoTime();
            awaitFor(Duration.ofSeconds(2));
            result = flood.stop();
        }

        List<Metrics> after = Metrics.ofEach(stack.gateways());
        Flood.Result window = result.where(sent -> sent - changedEverywhere >= 0);
        long ceiling = window.ceiling(lowered, lowered, changedEverywhere);
        double seconds = (window.lastAnsweredNanos() - changedEverywhere) / 1e9;
        LOG.infof("limit cut: %d requests before, leases held %.0f at the change; after every gateway applied %d/s:"
                + " %d requests in %.2f s, %s, allowed %d of at most %d%n  %s",
                result.answers().size() - window.answers().size(), heldAtChange, lowered, window.answers().size(),
                seconds, window.statuses(), window.allowed(), ceiling,
                leaseFigures(rule, before, after, result.answers().size(), result.allowed()));
        assertThat(window.statuses().keySet()).as("answers by status %s", window.statuses()).isSubsetOf(200, 429);
        assertThat(window.allowed()).as("allowed under the lowered limit in %.2f s", seconds)
                .isLessThanOrEqualTo((int) ceiling);
        assertThat(window.mostAhead(lowered, lowered, changedEverywhere))
                .as("allowed answers ahead of the lowered bucket at their moment").isLessThanOrEqualTo(0);
    }

    @Test
    @Order(4)
    void aGatewayKilledWhileHoldingALeaseCostsAtMostThatLease() {
        String rule = "lease.crash";
        String path = "/lease-crash/";
        long perSecond = 100;
        long burst = 2000;
        String key = limited(rule, path, perSecond, "1s", burst);
        int killed = GATEWAYS - 1;
        JavaService victim = stack.gateways().get(killed);
        List<JavaService> survivors = stack.gateways().subList(0, killed);
        List<Metrics> before = Metrics.ofEach(survivors);

        double held;
        long killedAt;
        Flood.Result result;
        try (Flood flood = Flood.start(FLOODERS, GATEWAYS, (g, i) -> stack.call(g, "GET", path + i, key))) {
            // a fifth of the bucket spent: far from empty, so each gateway leases about what it admits in a second
            await("a fifth of the bucket spent").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(10))
                    .until(() -> flood.allowed() >= burst / 5);
            // the balancer takes the gateway out; once its last requests are answered, it dies holding what it
            // leased (a lease just used up or run out: it gets traffic again until it holds one)
            held = await("the gateway out of the balancer, holding a lease").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(200)).until(() -> outHolding(flood, killed), h -> h > 0);
            victim.kill();
            killedAt = System.nanoTime();
            // the others spend the rest of the bucket, then live on its refill for two seconds
            await("the bucket spent, then two seconds of refill").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> flood.sofar()
                            .where(sent -> sent - killedAt >= 0).answers().stream()
                            .filter(a -> a.status() == 429).mapToLong(Flood.Answer::answeredNanos).min().stream()
                            .anyMatch(first -> System.nanoTime() - first >= 2_000_000_000L));
            result = flood.stop();
        }

        List<Metrics> after = Metrics.ofEach(survivors);
        double lostByStore = since(after, before, "tollgate_leases_tokens_lost_total", "rule=" + rule);
        long ceiling = result.ceiling(burst, perSecond);
        long lost = ceiling - result.allowed();
        long slack = perSecond / 5; // the span's ends (the ceiling counts from send to answer) and the last refill
        LOG.infof("gateway killed holding %.0f leased tokens: %d requests, %s; allowed %d of at most %d: lost %d"
                + " (bound %.0f held + %d slack + %.0f the survivors could not give back)%n  survivors: %s", held,
                result.answers().size(), result.statuses(), result.allowed(), ceiling, lost, held, slack, lostByStore,
                leaseFigures(rule, before, after, result.to(g -> g != killed).answers().size(),
                        result.to(g -> g != killed).allowed()));

        assertThat(result.statuses().keySet()).as("answers by status %s", result.statuses()).isSubsetOf(200, 429);
        assertThat(result.allowed()).as("allowed across the kill").isLessThanOrEqualTo((int) ceiling);
        assertThat(result.mostAhead(burst, perSecond, result.firstSentNanos()))
                .as("allowed answers ahead of the bucket at their moment").isLessThanOrEqualTo(0);
        assertThat((double) lost).as("tokens the client lost (the killed gateway held %.0f)", held)
                .isLessThanOrEqualTo(held + slack + lostByStore);
    }

    /**
     * Takes gateway {@code out} out of the flood's route and, once its requests are answered, reads the tokens it
     * holds in leases; when none, puts it back in the route (it gets traffic, and a lease, before the next try).
     */
    private static double outHolding(Flood flood, int out) {
        int[] others = IntStream.range(0, GATEWAYS).filter(g -> g != out).toArray();
        flood.route(others);
        await("the last requests to gateway " + out + " answered").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1)).until(() -> flood.inFlight(out) == 0);
        double held = Metrics.of(stack.gateways().get(out)).sum("tollgate_leases_tokens_held");
        if (held == 0) {
            flood.route(IntStream.range(0, GATEWAYS).toArray());
        }
        return held;
    }

    /**
     * Puts a token bucket rule per API key on {@code path}/** and waits until every gateway applies it; answers a
     * key of its own for the test's client.
     */
    private static String limited(String rule, String path, long limit, String period, long burst) {
        stack.putRule(rule, Rules.perApiKey(rule, path + "**", limit, period, burst, "closed"));
        Fleet.awaitEverywhere(stack, rule, path + "probe", Duration.ofSeconds(10));
        return Fleet.freshKey(rule.replace('.', '-'));
    }

    /** Floods the key over every gateway for {@code span}. */
    private static Flood.Result flood(String path, String key, Duration span) {
        try (Flood flood = Flood.start(FLOODERS, GATEWAYS, (g, i) -> stack.call(g, "GET", path + i, key))) {
            awaitFor(span);
            return flood.stop();
        }
    }

    /** Lets {@code span} pass while traffic flows: the length of a run, not a wait for something to happen. */
    private static void awaitFor(Duration span) {
        long until = System.nanoTime() + span.toNanos();
        await().atMost(span.plusSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> System.nanoTime() - until >= 0);
    }

    private static double total(List<Metrics> scrapes, String name, String... labels) {
        return scrapes.stream().mapToDouble(m -> m.sum(name, labels)).sum();
    }

    private static double since(List<Metrics> after, List<Metrics> before, String name, String... labels) {
        return total(after, name, labels) - total(before, name, labels);
    }

    /** The lease and store figures of {@code rule} across the fleet between two scrapes, for the log. */
    private static String leaseFigures(String rule, List<Metrics> before, List<Metrics> after, int requests,
            int allowed) {
        String r = "rule=" + rule;
        double leased = since(after, before, "tollgate_decisions_total", r, "outcome=leased");
        double storeCalls = since(after, before, STORE_CALLS);
        return String.format("leased %.0f (%.1f %% of allowed); store calls %.0f (%.3f a request); leases taken %.0f,"
                + " tokens leased %.0f, returned %.0f, lost %.0f; held now %.0f", leased, 100 * leased / allowed,
                storeCalls, storeCalls / requests, since(after, before, "tollgate_leases_taken_total", r),
                since(after, before, "tollgate_leases_tokens_leased_total", r),
                since(after, before, "tollgate_leases_tokens_returned_total", r),
                since(after, before, "tollgate_leases_tokens_lost_total", r),
                total(after, "tollgate_leases_tokens_held"));
    }
}
