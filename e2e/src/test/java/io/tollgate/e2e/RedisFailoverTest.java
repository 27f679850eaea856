package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A Redis primary killed under steady load over many keys: the cluster fails over, the gateways follow, fewer
 * than 5% of answers are errors, and none once the failover has settled. The rule's failure mode is
 * {@code closed}, so every store failure shows as an error (503) instead of being hidden by a fallback.
 */
class RedisFailoverTest {

    private static final Logger LOG = Logger.getLogger(RedisFailoverTest.class);
    private static final Duration LOAD = Duration.ofSeconds(30);
    private static final Duration CALM_TAIL = Duration.ofSeconds(8);

    record Answer(long atNanos, int status) {

        boolean error() {
            return status < 0 || status >= 500;
        }
    }

    @Test
    void killingAPrimaryCostsFewErrorsAndNoneAfterFailover() throws Exception {
        try (Stack stack = Stack.start(3, Map.of())) {
            stack.putRule("e2e.failover", Rules.perApiKey("e2e.failover", 1_000_000, "1s", "closed"));
            Fleet.awaitEverywhere(stack, "e2e.failover", Duration.ofSeconds(5));
            List<String> keys = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> "load-" + i).toList();
            String victim = stack.redis().primaries().get(0);

            ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
            long start = System.nanoTime();
            long end = start + LOAD.toNanos();
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
            org.awaitility.Awaitility.await("steady load").atMost(LOAD.minus(CALM_TAIL)).pollInterval(Duration.ofMillis(20))
                    .until(() -> answers.size() >= 1000);
            long killedAt = System.nanoTime();
            stack.redis().kill(victim);
            load.shutdown();
            assertThat(load.awaitTermination(LOAD.toSeconds() + 30, TimeUnit.SECONDS)).isTrue();

            List<Answer> all = List.copyOf(answers);
            List<Answer> errors = all.stream().filter(Answer::error).toList();
            double errorShare = (double) errors.size() / all.size();
            String window = errors.isEmpty()
                    ? "none"
                    : "%d ms, from %d ms to %d ms after the kill".formatted(
                            (errors.get(errors.size() - 1).atNanos() - errors.get(0).atNanos()) / 1_000_000,
                            (errors.get(0).atNanos() - killedAt) / 1_000_000,
                            (errors.get(errors.size() - 1).atNanos() - killedAt) / 1_000_000);
            LOG.infof("failover of %s under load: %d answers (%.0f/s), %d errors (%.2f%%), errors lasted %s", victim,
                    all.size(),
                    all.size() / (double) LOAD.toSeconds(), errors.size(), errorShare * 100, window);

            assertThat(all.size()).as("steady load of a few hundred requests a second")
                    .isGreaterThan(100 * (int) LOAD.toSeconds());
            assertThat(errorShare).as("share of error answers").isLessThan(0.05);
            assertThat(errors).as("errors in the last %s of the run", CALM_TAIL)
                    .noneMatch(e -> e.atNanos() > end - CALM_TAIL.toNanos());
            assertThat(stack.redis().primaries()).doesNotContain(victim);
        }
    }
}
