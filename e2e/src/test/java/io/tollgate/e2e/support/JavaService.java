package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jboss.logging.Logger;

/**
 * One packaged Quarkus service ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as its own process on
 * a free loopback port, configured through the environment as a user would; its output goes to
 * {@code e2e/target/e2e-logs/<name>.log}. A service with a management interface ({@code quarkus.management.enabled}
 * in its application.properties) gets a free port for it too, where its health and metrics are read
 * ({@link #managementUrl}).
 */
public final class JavaService implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(JavaService.class);
    /** The system property that runs every service with every JIT tier: for benchmarks. */
    public static final String FULL_JIT = "tollgate.e2e.full-jit";

    private final String name;
    private final Path jar;
    private final Map<String, String> env;
    private boolean allTiers;
    private final int port;
    /** Where {@code /q/*} is served: the management port, or {@link #port} for a service without one. */
    private final int managementPort;
    private Process process;

    public JavaService(String name, String module, Map<String, String> env) {
        this.name = name;
        this.jar = Repo.path(module + "/target/quarkus-app/quarkus-run.jar");
        this.env = new TreeMap<>(env);
        this.port = FreePorts.next();
        this.managementPort = hasManagementInterface(module) ? FreePorts.next() : port;
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package " + module + " first (./mvnw package)");
        }
    }

    private static boolean hasManagementInterface(String module) {
        try {
            return Files.readAllLines(Repo.path(module + "/src/main/resources/application.properties")).stream()
                    .anyMatch(line -> line.strip().equals("quarkus.management.enabled=true"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts the process and waits until {@code /q/health/live} answers. */
    public JavaService start() {
        launch();
        return awaitLive();
    }

    /**
     * Runs this service with every JIT tier, as the product runs it (before {@link #launch}): for one whose timing is
     * the point (a gateway on the product's store timeout), or one the tests give bulk work (a rules service
     * importing a million clients in one request), which C1's code does at about half the speed of C2's.
     */
    public JavaService withAllTiers() {
        allTiers = true;
        return this;
    }

    /**
     * Starts the process without waiting, so several services can start side by side. Its JIT stops at C1
     * ({@code -XX:TieredStopAtLevel=1}, as Quarkus dev mode runs it) unless {@link #withAllTiers}: a start costs
     * some 40% less CPU, and the tests start some seventy services on two shared cores. A benchmark, which measures
     * the services' speed, sets {@value #FULL_JIT} to {@code true} and runs them all with the JVM's own tiers.
     */
    public JavaService launch() {
        List<String> command = new ArrayList<>(List.of(Repo.java(), "-Xmx256m", "-XX:+UseSerialGC"));
        if (!allTiers && !Boolean.getBoolean(FULL_JIT)) {
            command.add("-XX:TieredStopAtLevel=1");
        }
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        builder.environment().put("QUARKUS_HTTP_PORT", Integer.toString(port));
        if (managementPort != port) {
            builder.environment().put("QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort));
        }
        Path log = log();
        try {
            Files.createDirectories(log.getParent());
            builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            process = builder.start();
            Process started = process;
            // processes outlive a test JVM that ends without close(): stop them with it
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Waits until {@code /q/health/live} answers; fails at once if the process exited. */
    public JavaService awaitLive() {
        await(name + " live on port " + port).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> running() && Http.status(managementUrl("/q/health/live")) == 200);
        LOG.infof("%s runs on %s, health on %s (pid %d)", name, url(""), managementUrl(""), process.pid());
        return this;
    }

    /** Ends the process at once, as a crash would. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor();
        }
    }

    /** Ends the process politely (SIGTERM). */
    public void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            waitFor();
        }
    }

    private void waitFor() {
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code /q/health/ready} answers 200 (a gateway: once it holds a rule set and is warmed up). */
    public JavaService awaitReady() {
        return awaitReady(Duration.ofMillis(100));
    }

    /**
     * Like {@link #awaitReady()}, asking every {@code pollInterval}: a short one for a test that acts the moment
     * the service turns ready. Fails at once if the process exited.
     */
    public JavaService awaitReady(Duration pollInterval) {
        await(name + " ready").atMost(Duration.ofSeconds(30)).pollInterval(pollInterval)
                .until(() -> running() && Http.status(managementUrl("/q/health/ready")) == 200);
        return this;
    }

    /** True while the process runs; once it has exited, fails the wait at once, naming its log. */
    private boolean running() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + ", see " + log());
        }
        return true;
    }

    /** What the process has written to its log so far. */
    public String logText() {
        try {
            return Files.readString(log());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot read " + log(), e);
        }
    }

    private Path log() {
        return Repo.path("e2e/target/e2e-logs/" + name + ".log");
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** A URL on the service's public port. */
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** A URL on the service's management interface (health, metrics, operations), e.g. {@code /q/metrics}. */
    public String managementUrl(String path) {
        return "http://127.0.0.1:" + managementPort + path;
    }

    public int port() {
        return port;
    }

    public String name() {
        return name;
    }

    @Override
    public void close() {
        kill();
    }
}
