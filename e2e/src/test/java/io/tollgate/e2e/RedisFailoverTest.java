package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A Redis primary killed under steady load over many keys: the cluster fails over, the gateways follow,
 * fewer than 5% of answers are errors, and once the failover has settled every check is decided by the
 * store again (no fallback decision in the last seconds of the run). The rule keeps the default failure
 * mode ({@code local}), as a deployment would; the fallback decisions the gateways made show how long
 * the store was out for them, and are reported.
 */
class RedisFailoverTest {

    private static final Logger LOG = Logger.getLogger(RedisFailoverTest.class);
    private static final Duration LOAD = Duration.ofSeconds(30);
    private static final Duration CALM_TAIL = Duration.ofSeconds(8);
    private static final Pattern FALLBACK = Pattern.compile(
            "tollgate_decisions_total\\{[^}]*outcome=\"fallback_[a-z]+\"[^}]*} ([0-9.E]+)");

    record Answer(long atNanos, int status) {

        boolean error() {
            return status < 0 || status >= 500;
        }
    }

    record Sample(long atNanos, double fallbacks) {
    }

    @Test
    void killingAPrimaryCostsFewErrorsAndTheGatewaysFollowTheFailover() throws Exception {
        try (Stack stack = Stack.start(3, Map.of())) {
            stack.putRule("e2e.failover", Rules.perApiKey("e2e.failover", 1_000_000, "1s", "local"));
            Fleet.awaitEverywhere(stack, "e2e.failover", Duration.ofSeconds(5));
            List<String> keys = IntStream.range(0, 1000).mapToObj(i -> "load-" + i).toList();
            String victim = stack.redis().primaries().get(0);

            ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
            long start = System.nanoTime();
            long end = start + LOAD.toNanos();
            ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor();
            scraper.scheduleAtFixedRate(() -> samples.add(new Sample(System.nanoTime(), fallbacks(stack))), 0, 250,
                    TimeUnit.MILLISECONDS);
            ExecutorService load = Executors.newFixedThreadPool(4);
            for (int t = 0; t < 4; t++) {
                load.submit(() -> {
                    int i = 0;
                    while (System.nanoTime() < end) {
                        String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                        int status;
                        try {
                            status = stack.call(i++ % 3, "GET", "/items", key).statusCode();
                        } catch (RuntimeException e) {
                            status = -1;
                        }
                        answers.add(new Answer(System.nanoTime(), status));
                    }
                });
            }
            // the kill comes once the load is established: after a first thousand answers
            Awaitility.await("steady load").atMost(LOAD.minus(CALM_TAIL)).pollInterval(Duration.ofMillis(20))
                    .until(() -> answers.size() >= 1000);
            long killedAt = System.nanoTime();
            stack.redis().kill(victim);
            load.shutdown();
            assertThat(load.awaitTermination(LOAD.toSeconds() + 30, TimeUnit.SECONDS)).isTrue();
            scraper.shutdown();
            assertThat(scraper.awaitTermination(5, TimeUnit.SECONDS)).isTrue();

            List<Answer> all = List.copyOf(answers);
            long errors = all.stream().filter(Answer::error).count();
            double errorShare = (double) errors / all.size();
            List<Sample> scraped = List.copyOf(samples);
            double before = scraped.stream().filter(s -> s.atNanos() < killedAt).mapToDouble(Sample::fallbacks).max().orElse(0);
            List<Sample> rising = IntStream.range(1, scraped.size())
                    .filter(i -> scraped.get(i).fallbacks() > scraped.get(i - 1).fallbacks())
                    .mapToObj(scraped::get).toList();
            String outage = rising.isEmpty()
                    ? "none seen"
                    : "until %d ms after the kill".formatted((rising.get(rising.size() - 1).atNanos() - killedAt) / 1_000_000);
            LOG.infof("failover of %s under load: %d answers (%.0f/s), %d errors (%.2f%%); fallback decisions %.0f, %s",
                    victim, all.size(), all.size() / (double) LOAD.toSeconds(), errors, errorShare * 100,
                    scraped.get(scraped.size() - 1).fallbacks() - before, outage);

            assertThat(all.size()).as("steady load of a few hundred requests a second")
                    .isGreaterThan(100 * (int) LOAD.toSeconds());
            assertThat(errorShare).as("share of error answers").isLessThan(0.05);
            assertThat(rising).as("fallback decisions in the last %s of the run", CALM_TAIL)
                    .noneMatch(s -> s.atNanos() > end - CALM_TAIL.toNanos());
            assertThat(stack.redis().primaries()).doesNotContain(victim);
        }
    }

    /** Fallback decisions so far, over every live gateway, from their /q/metrics. */
    private static double fallbacks(Stack stack) {
        double sum = 0;
        for (var gateway : stack.gateways()) {
            Matcher m = FALLBACK.matcher(Http.get(gateway.managementUrl("/q/metrics"), Map.of()).body());
            while (m.find()) {
                sum += Double.parseDouble(m.group(1));
            }
        }
        return sum;
    }
}
