package io.tollgate.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The repository's launcher, {@code ./tollgate}, run as a user runs it, with an environment of the test's. */
public final class Launcher {

    /** What one command printed (stdout and stderr together) and how it exited. */
    public record Run(int exitCode, String output) {
    }

    private Launcher() {
    }

    /**
     * Runs {@code ./tollgate <args>} with {@code env} added to (or, for a null value, removed from) this JVM's
     * environment; fails when it takes longer than {@code atMost}, after ending it.
     */
    public static Run run(Map<String, String> env, Duration atMost, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", Repo.path("tollgate").toString()));
        command.addAll(List.of(args));
        return execute(command, env, atMost, "./tollgate " + String.join(" ", args));
    }

    /**
     * Runs one function of {@code ./tollgate} with {@code args}: the launcher sourced (it then only defines its
     * functions), as bash runs it, in the repository; fails when it takes longer than {@code atMost}.
     */
    public static Run function(Duration atMost, String function, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "source \"$1\" && shift && \"$@\"", "launcher",
                Repo.path("tollgate").toString(), function));
        command.addAll(List.of(args));
        return execute(command, Map.of(), atMost, "the launcher's " + function + " " + String.join(" ", args));
    }

    private static Run execute(List<String> command, Map<String, String> env, Duration atMost, String what) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(Repo.path(".").toFile())
                .redirectErrorStream(true);
        env.forEach((name, value) -> {
            if (value == null) {
                builder.environment().remove(name);
            } else {
                builder.environment().put(name, value);
            }
        });
        try {
            Path output = Files.createTempFile("tollgate-launcher-", ".log");
            builder.redirectOutput(output.toFile());
            Process process = builder.start();
            boolean ended = process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroy();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            Files.delete(output);
            if (!ended) {
                throw new AssertionError(what + " ran longer than " + atMost + ":\n" + printed);
            }
            return new Run(process.exitValue(), printed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The repository's folder, where {@code ./tollgate} runs and the docs' commands are written to run. */
    public static Path root() {
        return Repo.path(".");
    }

    /**
     * Runs {@code command} with bash in the repository's folder, {@code input} on its standard input; fails when it
     * takes longer than {@code atMost}, after ending it.
     */
    public static Run shell(String command, String input, Duration atMost) {
        try {
            Process process = new ProcessBuilder("bash", "-c", command).directory(root().toFile())
                    .redirectErrorStream(true).start();
            try (var stdin = process.getOutputStream()) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
            boolean ended = process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroyForcibly();
                throw new AssertionError("`" + command + "` ran longer than " + atMost);
            }
            return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
