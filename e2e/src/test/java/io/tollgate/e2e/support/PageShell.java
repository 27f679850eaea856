package io.tollgate.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One terminal in which a reader pastes a page's blocks, one after another, from the repository's root: each block
 * runs with {@code bash -e -o pipefail}, and what a block exports (the admin token, say) is there for the next
 * ones of the page, as in one shell. The page's addresses are made the stack's first ({@code replacements}). Its
 * curl writes, besides what the page asks, each call's URL and status to stderr (a curlrc of the terminal's own).
 */
public final class PageShell implements AutoCloseable {

    /**
     * What one block printed and how it exited; {@code calls}: each curl call's URL and status, in order (curl
     * writes them to stderr through the terminal's curlrc, where they are taken out of {@code errors}).
     */
    public record Result(int exit, String output, String errors, List<Call> calls) {

        /** Both streams, for messages. */
        public String printed() {
            return output + (errors.isBlank() ? "" : "--- on stderr:\n" + errors);
        }
    }

    /** One curl call a block made: the URL it ended at and the status it got (000: no answer). */
    public record Call(String url, int status) {
    }

    private static final String CALL_MARK = "tollgate-docs-call ";

    private final Map<String, String> replacements;
    private final Path exported;
    private final Path curlHome;

    public PageShell(Map<String, String> replacements) {
        this.replacements = replacements;
        try {
            exported = Files.createTempFile("docs-page-", ".env");
            curlHome = Files.createTempDirectory("docs-curl-");
            Files.writeString(curlHome.resolve(".curlrc"),
                    "write-out = \"%{stderr}" + CALL_MARK + "%{url_effective} %{http_code}\\n\"\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The block as this stack runs it: the page's addresses and files made the stack's. */
    public String localised(String text) {
        String local = text;
        for (Map.Entry<String, String> replacement : replacements.entrySet()) {
            local = local.replace(replacement.getKey(), replacement.getValue());
        }
        return local;
    }

    /** Runs one block of the page; at most {@code seconds}. */
    public Result run(String block, int seconds) {
        String script = "set +e; . '" + exported + "' 2>/dev/null; set -e\n"
                + "trap 'export -p > \"" + exported + "\"' EXIT\n" + localised(block);
        try {
            Path output = Files.createTempFile("docs-block-", ".out");
            Path errors = Files.createTempFile("docs-block-", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder("bash", "-e", "-o", "pipefail", "-c", script)
                        .redirectError(errors.toFile()).redirectOutput(output.toFile()).directory(Repo.path(".").toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                // a reader's terminal holds no token until the page says how to get it
                builder.environment().remove("TOLLGATE_ADMIN_TOKEN");
                builder.environment().put("CURL_HOME", curlHome.toString());
                Process process = builder.start();
                int exit;
                if (process.waitFor(seconds, TimeUnit.SECONDS)) {
                    exit = process.exitValue();
                } else {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor();
                    exit = -1;
                }
                List<Call> calls = new ArrayList<>();
                StringBuilder said = new StringBuilder();
                for (String line : Files.readAllLines(errors, StandardCharsets.UTF_8)) {
                    if (line.startsWith(CALL_MARK)) {
                        String[] call = line.substring(CALL_MARK.length()).split(" ");
                        calls.add(new Call(call[0], Integer.parseInt(call[call.length - 1])));
                    } else {
                        said.append(line).append('\n');
                    }
                }
                return new Result(exit, Files.readString(output, StandardCharsets.UTF_8), said.toString(), calls);
            } finally {
                Files.deleteIfExists(output);
                Files.deleteIfExists(errors);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(exported);
            Files.deleteIfExists(curlHome.resolve(".curlrc"));
            Files.deleteIfExists(curlHome);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
