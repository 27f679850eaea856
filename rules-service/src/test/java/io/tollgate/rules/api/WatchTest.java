package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.reading;
import static io.tollgate.rules.Api.rule;
import static io.tollgate.rules.Api.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.rules.SseClient;
import io.tollgate.rules.TestDatabase;

/** The watch stream on one instance: events per version, replay on reconnect, heartbeats. */
@QuarkusTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class WatchTest {

    private static final Logger LOG = Logger.getLogger(WatchTest.class);

    @Test
    void aWriteReachesAWatcherWithinOneSecond() {
        try (SseClient watch = SseClient.open("/api/v1/rules/watch")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> !watch.comments().isEmpty());
            reading().get("/api/v1/rules").then().statusCode(200); // warm the HTTP client: measure the stream
            String id = id("watched");

            long writtenAt = System.nanoTime();
            String etag = as(ADMIN).body(rule(id, 1)).post("/api/v1/rules").header("ETag");
            long committedAt = System.nanoTime();
            long version = Long.parseLong(etag.replace("\"", ""));

            await().atMost(Duration.ofSeconds(1)).until(() -> watch.events().stream().anyMatch(e -> e.id() == version));
            SseClient.Event event = watch.events().stream().filter(e -> e.id() == version).findFirst().orElseThrow();
            assertThat(event.data()).contains("\"version\":" + version).contains("\"operation\":\"create\"")
                    .contains("\"id\":\"" + id + "\"");
            Duration latency = Duration.ofNanos(event.arrivedNanos() - writtenAt);
            LOG.infof("write to watcher: %d ms from sending the write, %d ms from its answer", latency.toMillis(),
                    Duration.ofNanos(event.arrivedNanos() - committedAt).toMillis());
            assertThat(latency).isLessThan(Duration.ofSeconds(1));
        }
    }

    @Test
    void streamsAtOnePositionShareTheirReads() {
        int streams = 8;
        java.util.List<SseClient> watches = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < streams; i++) {
                SseClient watch = SseClient.open("/api/v1/rules/watch");
                watches.add(watch);
                await().atMost(Duration.ofSeconds(5)).until(() -> !watch.comments().isEmpty());
            }
            double before = watchReads();
            String etag = as(ADMIN).body(rule(id("shared"), 1)).post("/api/v1/rules").header("ETag");
            long version = Long.parseLong(etag.replace("\"", ""));
            await().atMost(Duration.ofSeconds(5)).until(
                    () -> watches.stream().allMatch(w -> w.events().stream().anyMatch(e -> e.id() == version)));
            // one read per position, not one per stream (a stream poked after a read began takes one of its own)
            assertThat(watchReads() - before).isLessThan(streams / 2.0);
        } finally {
            watches.forEach(SseClient::close);
        }
    }

    private static double watchReads() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^tollgate_rules_watch_reads_total ([0-9.E]+)$")
                .matcher(io.tollgate.rules.Api.management().get("/q/metrics").asString());
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void reconnectingWithSinceReplaysWhatWasMissed() {
        long since = version();
        String id = id("missed");
        as(ADMIN).body(rule(id, 1)).post("/api/v1/rules").then().statusCode(201);
        as(ADMIN).body(rule(id, 2)).put("/api/v1/rules/" + id).then().statusCode(200);
        as(ADMIN).delete("/api/v1/rules/" + id).then().statusCode(204);

        try (SseClient watch = SseClient.open("/api/v1/rules/watch?since=" + since)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> watch.events().size() >= 3);
            assertThat(watch.events()).extracting(SseClient.Event::id).startsWith(since + 1, since + 2, since + 3);
            assertThat(watch.events().get(2).data()).contains("\"operation\":\"delete\"");
        }
        try (SseClient watch = SseClient.open("/api/v1/rules/watch", Long.toString(since + 1))) {
            await().atMost(Duration.ofSeconds(5)).until(() -> watch.events().size() >= 2);
            assertThat(watch.events()).extracting(SseClient.Event::id).startsWith(since + 2, since + 3);
        }
    }

    @Test
    void idleStreamsGetHeartbeats() {
        try (SseClient watch = SseClient.open("/api/v1/rules/watch")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> watch.comments().contains("heartbeat"));
        }
    }

    @Test
    void badSinceIs400() {
        reading().get("/api/v1/rules/watch?since=yesterday").then().statusCode(400)
                .contentType("application/problem+json");
    }
}
