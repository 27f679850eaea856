package io.tollgate.rules.api;

import static io.tollgate.rules.Api.ADMIN;
import static io.tollgate.rules.Api.as;
import static io.tollgate.rules.Api.id;
import static io.tollgate.rules.Api.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.tollgate.rules.TestDatabase;

/**
 * Two processes of the packaged service on one database: a write to the first (the app under test)
 * reaches a watcher of the second within one second, through PostgreSQL NOTIFY alone.
 */
@QuarkusIntegrationTest
@WithTestResource(value = TestDatabase.class, scope = TestResourceScope.GLOBAL)
class SecondProcessWatchIT {

    @Test
    void aWriteToOneProcessReachesTheOtherProcessesWatcher() throws Exception {
        int port = freePort();
        Path log = Path.of("target", "second-instance.log");
        Process second = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.port=0", // not the 9001 of the prod profile
                "-Dtollgate.admin.token=" + ADMIN.substring("Bearer ".length()), // the watch stream needs a token
                "-Dquarkus.datasource.reactive.url=" + TestDatabase.reactiveUrl(TestDatabase.current()),
                "-Dquarkus.datasource.jdbc.url=" + TestDatabase.jdbcUrl(TestDatabase.current()),
                "-jar", new File("target/quarkus-app/quarkus-run.jar").getAbsolutePath()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            List<String> lines = new CopyOnWriteArrayList<>();
            HttpClient.newHttpClient().sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/rules/watch"))
                            .header("Authorization", ADMIN).build(),
                    HttpResponse.BodyHandlers.fromLineSubscriber(new Collect(lines)));
            // the second process may still be starting: reconnect until its stream answers
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                if (lines.isEmpty()) {
                    HttpClient.newHttpClient().sendAsync(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/rules/watch"))
                                    .header("Authorization", ADMIN).build(),
                            HttpResponse.BodyHandlers.fromLineSubscriber(new Collect(lines)));
                }
                return lines.stream().anyMatch(l -> l.startsWith(": watching"));
            });

            // the first write of a fresh process pays its cold start (validator bootstrap, first query plans):
            // seconds on a loaded machine, and not what this test is about; it is awaited without the bound
            String warm = as(ADMIN).body(rule(id("two-process-warm"), 1)).post("/api/v1/rules").header("ETag");
            await().atMost(Duration.ofSeconds(30)).until(() -> lines.contains("id: " + warm.replace("\"", "")));

            String id = id("two-process");
            long written = System.nanoTime();
            String etag = as(ADMIN).body(rule(id, 1)).post("/api/v1/rules").header("ETag");

            await().atMost(Duration.ofSeconds(1)).until(() -> lines.contains("id: " + etag.replace("\"", "")));
            assertThat(Duration.ofNanos(System.nanoTime() - written)).isLessThan(Duration.ofSeconds(1));
        } finally {
            second.destroy();
            second.waitFor();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private record Collect(List<String> lines) implements Flow.Subscriber<String> {

        @Override
        public void onSubscribe(Flow.Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            lines.add(line);
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onComplete() {
        }
    }
}
