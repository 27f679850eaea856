package io.tollgate.rules.api;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.tollgate.rules.TestDatabase;

/**
 * One more process of the packaged service (target/quarkus-app), on a free port and the tests' database, ready
 * when its API answers: a second instance, sharing nothing with the app under test but PostgreSQL, configured
 * as it is (the test profile).
 */
final class PackagedInstance implements AutoCloseable {

    final int port;
    private final Process process;

    PackagedInstance(String logName) throws IOException {
        port = freePort();
        process = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.profile=test", // as the app under test: its tokens, its allowance of wrong ones
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.port=0", // not the 9001 of the prod profile
                "-Dquarkus.datasource.reactive.url=" + TestDatabase.reactiveUrl(TestDatabase.current()),
                "-Dquarkus.datasource.jdbc.url=" + TestDatabase.jdbcUrl(TestDatabase.current()),
                "-jar", new File("target/quarkus-app/quarkus-run.jar").getAbsolutePath()))
                .redirectErrorStream(true)
                .redirectOutput(Path.of("target", logName).toFile())
                .start();
        HttpClient client = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreException(
                ConnectException.class).until(
                        () -> client.send(
                                HttpRequest.newBuilder(URI.create(url("/api/v1/rules")))
                                        .header("Authorization", io.tollgate.rules.Api.READ).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
