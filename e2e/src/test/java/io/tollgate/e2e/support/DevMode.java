package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jboss.logging.Logger;

/**
 * One service in Quarkus dev mode ({@code ./mvnw test-compile quarkus:dev -pl <module> -am}), as a newcomer runs it, in a
 * copy of the repository's sources under a temporary folder, so that the sources it changes are the copy's: the
 * checkout is never touched, whatever happens to the test. With {@code -am} the modules it builds on are compiled
 * from the copy too, never taken from whatever an earlier {@code install} left in the local Maven repository. Ports
 * are free ones; Quarkus's question about build analytics, which no one here can answer and which holds the start
 * back 10 s, is answered no ({@code quarkus.analytics.disabled}); its output goes to
 * {@code e2e/target/e2e-logs/devmode-<module>.log}. Closing it stops Maven and the dev-mode JVM it forked, and
 * removes the copy.
 */
public final class DevMode implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DevMode.class);
    /** What the copy leaves out: git's state, the launcher's, and build output. */
    private static final Set<String> LEFT_OUT = Set.of(".git", ".tollgate", "target", "node_modules");

    private final String module;
    private final Path copy;
    private final int port = FreePorts.next();
    private final int managementPort = FreePorts.next();
    private final Process process;

    private DevMode(String module, Map<String, String> properties) {
        this.module = module;
        try {
            this.copy = Files.createTempDirectory("tollgate-devmode-");
            copyTree(Repo.path(""), copy);
            List<String> command = new ArrayList<>(List.of("./mvnw", "-B", "test-compile", "quarkus:dev", "-pl", module, "-am",
                    "-Dquarkus.console.enabled=false", "-Ddebug=false", "-Dformat.skip", "-Dquarkus.analytics.disabled=true",
                    "-Dquarkus.http.port=" + port, "-Dquarkus.management.port=" + managementPort));
            properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            Path log = Repo.path("e2e/target/e2e-logs/devmode-" + module + ".log");
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).directory(copy.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            this.process = builder.start();
            Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
            LOG.infof("%s in dev mode on port %d, management %d, in %s, log %s", module, port, managementPort, copy, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts {@code module} in dev mode with these system properties, without waiting: see {@link #awaitLive}. */
    public static DevMode launch(String module, Map<String, String> properties) {
        return new DevMode(module, properties);
    }

    /** Waits until the service answers its liveness check; fails at once if Maven exited. */
    public DevMode awaitLive(Duration atMost) {
        await(module + " live in dev mode").atMost(atMost).pollInterval(Duration.ofMillis(100))
                .until(() -> running() && Http.status(managementUrl("/q/health/live")) == 200);
        return this;
    }

    /** Writes {@code source} to {@code relative} (under the module's copy), as an editor saves a file. */
    public void write(String relative, String source) {
        try {
            Path file = copy.resolve(module).resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Dev mode looks for changed sources when a request reaches the public port (the management interface does
     * not trigger it): one request there, answered whatever it is.
     */
    public void touch() {
        Http.status(url("/"));
    }

    /** True while Maven runs; once it has exited, fails the wait at once. */
    public boolean running() {
        if (!process.isAlive()) {
            throw new IllegalStateException(module + " dev mode exited with " + process.exitValue());
        }
        return true;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    public String managementUrl(String path) {
        return "http://127.0.0.1:" + managementPort + path;
    }

    private void stop() {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle handle : tree) {
            try {
                handle.onExit().get(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
            }
        }
    }

    @Override
    public void close() {
        stop();
        deleteTree(copy);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {

            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(from) && LEFT_OUT.contains(dir.getFileName().toString())) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            LOG.warnf("could not remove %s: %s", root, e.getMessage());
        }
    }
}
