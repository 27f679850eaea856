package io.tollgate.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

/**
 * Debian's nginx as a plain round-robin balancer (no stickiness) in front of several instances of one service, as
 * its own process on a free loopback port, with a configuration written to a temporary folder and
 * {@code daemon off}; no system service is involved. Every answer carries {@link #UPSTREAM_HEADER}, the address
 * of the instance that gave it, so a test can tell which one answered. Streams (the rules' watch) pass unbuffered.
 * {@code X-Forwarded-For} is set to the caller's address, replacing any a caller sent.
 * Without nginx on the machine it fails, naming the package.
 */
public final class Nginx implements AutoCloseable {

    /** The answer's header naming the instance that gave it ({@code 127.0.0.1:<port>}). */
    public static final String UPSTREAM_HEADER = "X-Upstream";

    private static final Logger LOG = Logger.getLogger(Nginx.class);

    private final Path dir;
    private final int port;
    private final Process process;

    private Nginx(List<JavaService> instances) {
        File nginx = executable();
        port = FreePorts.next();
        try {
            dir = Files.createTempDirectory("tollgate-nginx-");
            // the workers (another user when nginx starts as root) write their temporary files here
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path logs = Repo.path("e2e/target/e2e-logs");
            Files.createDirectories(logs);
            Files.writeString(dir.resolve("nginx.conf"), config(instances, logs));
            ProcessBuilder builder = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c",
                    dir.resolve("nginx.conf").toString(), "-e", logs.resolve("nginx-error.log").toString(),
                    "-g", "daemon off;");
            builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
                    logs.resolve("nginx.log").toFile()));
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
        await("nginx on port " + port).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("nginx exited with " + process.exitValue()
                                + ", see e2e/target/e2e-logs/nginx-error.log");
                    }
                    return Http.status(url("/q/none")) > 0;
                });
        LOG.infof("nginx balances %s on %s (pid %d)",
                instances.stream().map(JavaService::name).collect(Collectors.joining(", ")), url(""), process.pid());
    }

    /** Starts nginx balancing round robin over {@code instances}' public ports. */
    public static Nginx roundRobin(List<JavaService> instances) {
        return new Nginx(instances);
    }

    private String config(List<JavaService> instances, Path logs) {
        String servers = instances.stream()
                .map(instance -> "        server 127.0.0.1:" + instance.port() + " max_fails=1 fail_timeout=5s;")
                .collect(Collectors.joining("\n"));
        return """
                worker_processes 1;
                pid %1$s/nginx.pid;
                events { worker_connections 1024; }
                http {
                    log_format upstream '$request_method $uri $status $upstream_addr $request_time';
                    access_log %2$s/nginx-access.log upstream;
                    client_body_temp_path %1$s/client-body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    upstream instances {
                %3$s
                        keepalive 16;
                    }
                    server {
                        listen 127.0.0.1:%4$d;
                        location / {
                            proxy_pass http://instances;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_set_header Host $http_host;
                            proxy_set_header X-Forwarded-For $remote_addr;
                            proxy_buffering off;
                            proxy_read_timeout 1h;
                            add_header %5$s $upstream_addr always;
                        }
                    }
                }
                """.formatted(dir, logs, servers, port, UPSTREAM_HEADER);
    }

    /** nginx on the PATH or in /usr/sbin (root's PATH has it, a user's often not); fails naming the package. */
    private static File executable() {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("") + File.pathSeparator + "/usr/sbin";
        return Stream.of(path.split(File.pathSeparator))
                .map(folder -> new File(folder, "nginx"))
                .filter(File::canExecute)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no nginx on the PATH or in /usr/sbin: the tests of "
                        + "several rules-service instances behind a balancer need Debian's nginx (./tollgate test "
                        + "installs it as root; otherwise apt-get install nginx)"));
    }

    /** A URL through the balancer. */
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() {
        // SIGTERM: the master stops its workers; killed outright, it would leave them running
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warnf("could not delete %s: %s", dir, e);
        }
    }
}
