package io.tollgate.rules.store;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.SseClient;
import io.tollgate.rules.TestDatabase;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;

/**
 * Instances tell each other through PostgreSQL NOTIFY only: a write committed by a second instance (its
 * own Vert.x, pool and LISTEN connection) reaches the watchers of the app under test within one second,
 * and a write to the app reaches the second instance's listener.
 */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class CrossInstanceWatchTest {

    private static final Logger LOG = Logger.getLogger(CrossInstanceWatchTest.class);

    @Inject
    RulesConfig config;

    @Test
    void aWriteOnAnotherInstanceReachesThisInstancesWatchersWithinOneSecond() {
        try (SecondInstance other = new SecondInstance(config);
                SseClient watch = SseClient.open("/api/v1/rules/watch")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !watch.comments().isEmpty());
            String id = id("remote");

            long writtenAt = System.nanoTime();
            long version = other.store.create(Rule.of(id, "/**", KeySpec.IP, 3, Duration.ofSeconds(1)), "other")
                    .await().atMost(Duration.ofSeconds(5)).version();
            long committedAt = System.nanoTime();

            await().atMost(Duration.ofSeconds(1)).until(() -> watch.events().stream().anyMatch(e -> e.id() == version));
            SseClient.Event event = watch.events().stream().filter(e -> e.id() == version).findFirst().orElseThrow();
            assertThat(event.data()).contains("\"actor\":\"other\"").contains(id);
            Duration latency = Duration.ofNanos(event.arrivedNanos() - writtenAt);
            LOG.infof("write to watcher: %d ms from sending the write, %d ms from its answer", latency.toMillis(),
                    Duration.ofNanos(event.arrivedNanos() - committedAt).toMillis());
            assertThat(latency).isLessThan(Duration.ofSeconds(1));
        }
    }

    @Test
    void aWriteOnThisInstanceReachesAnotherInstancesListener() {
        try (SecondInstance other = new SecondInstance(config)) {
            AtomicInteger pokes = new AtomicInteger();
            other.changes.subscribe(pokes::incrementAndGet);
            // its LISTEN may be in place before the subscription above (its poke then went to nobody)
            await().atMost(Duration.ofSeconds(5)).until(other.changes::listening);
            int before = pokes.get();

            as(ADMIN).body(rule(id("local"), 1)).post("/api/v1/rules").then().statusCode(201);

            await().atMost(Duration.ofSeconds(1)).until(() -> pokes.get() > before);
        }
    }
}
