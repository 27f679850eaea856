package io.tollgate.counter.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One private {@code redis-server} process on a free loopback port, with its own temp dir; the
 * building block of {@link RedisNode} and {@link RedisCluster}.
 */
final class RedisProcess implements AutoCloseable {

    private static final int ATTEMPTS = 5;

    private final int port;
    private final Path dir;
    private final String[] extraArgs;
    /** Stops the server when the JVM exits without {@link #close()} (a test that forgot, a killed fork). */
    private final Thread reaper = new Thread(this::destroyNow, "redis-reaper");
    private volatile Process process;

    private RedisProcess(int port, Path dir, String[] extraArgs, Process process) {
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
        this.process = process;
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * Starts redis-server with {@code extraArgs} and waits until it answers PING; a port taken meanwhile
     * by someone else means another try on another port.
     *
     * @param clusterBus
     * whether port + 10000 (the cluster bus) must be free too
     */
    static RedisProcess start(boolean clusterBus, String... extraArgs) {
        requireRedisServer();
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            int port = freePort(clusterBus);
            Path dir = tempDir();
            Process process = launch(port, dir, extraArgs);
            try {
                Awaitility.await("redis-server on port " + port + " answers PING")
                        .atMost(Duration.ofSeconds(15))
                        .pollInterval(Duration.ofMillis(50))
                        .ignoreExceptions()
                        .until(() -> !process.isAlive() || "PONG".equals(Resp.text(port, "PING")));
                if (process.isAlive()) {
                    return new RedisProcess(port, dir, extraArgs, process);
                }
                last = new IllegalStateException("redis-server on port " + port + " exited: " + log(dir));
            } catch (ConditionTimeoutException e) {
                last = new IllegalStateException("redis-server on port " + port + " did not answer: " + log(dir), e);
            }
            process.destroyForcibly();
            delete(dir);
        }
        throw last;
    }

    int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:port}. */
    String address() {
        return "redis://127.0.0.1:" + port;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Kills the process at once (SIGKILL), as a crashed node. */
    void kill() {
        process.destroyForcibly();
        waitForExit();
    }

    /**
     * Starts the same server again, on the same port and dir (so a cluster node keeps its nodes.conf and
     * rejoins as itself), after a {@link #kill()}; waits until it answers PING.
     */
    void restart() {
        if (process.isAlive()) {
            return;
        }
        process = launch(port, dir, extraArgs);
        Awaitility.await("redis-server on port " + port + " answers PING again")
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> "PONG".equals(Resp.text(port, "PING")));
    }

    @Override
    public void close() {
        process.destroy();
        waitForExit();
        delete(dir);
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: the hook runs anyway and finds the process gone
        }
    }

    private void destroyNow() {
        process.destroyForcibly();
        waitForExit();
        delete(dir);
    }

    private void waitForExit() {
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Process launch(int port, Path dir, String... extraArgs) {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
        command.addAll(List.of(extraArgs));
        try {
            return new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server", e);
        }
    }

    private static void requireRedisServer() {
        String path = System.getenv().getOrDefault("PATH", "");
        boolean found = Stream.of(path.split(File.pathSeparator))
                .anyMatch(p -> Files.isExecutable(Path.of(p, "redis-server")));
        if (!found) {
            throw new IllegalStateException(
                    "redis-server is not on the PATH: install Redis >= 7 (e.g. apt-get install redis-server)");
        }
    }

    /** A port free now on loopback (and its cluster bus port, when asked), in a range below the ephemeral one. */
    private static int freePort(boolean clusterBus) {
        for (int i = 0; i < 200; i++) {
            int port = ThreadLocalRandom.current().nextInt(20000, 30000);
            if (free(port) && (!clusterBus || free(port + 10000))) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("tollgate-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String log(Path dir) {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
