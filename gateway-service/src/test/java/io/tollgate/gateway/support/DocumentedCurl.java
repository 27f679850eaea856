package io.tollgate.gateway.support;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code curl} lines of a {@code sh} block of docs/protocols.md as written, but for the replacements given
 * (the page's ports and paths for the test's), each with {@code -s -o /dev/null -w '%{http_version} %{http_code}'}
 * added after {@code curl}, so a test reads which protocol answered and with what status.
 */
public final class DocumentedCurl {

    private DocumentedCurl() {
    }

    /** One line per curl line of the first block that holds {@code marker}: {@code "2 200"}, {@code "1.1 429"}. */
    public static List<String> run(String marker, Map<String, String> replacements, Path dir) throws Exception {
        String block = TlsResource.block(Files.readString(TlsResource.PAGE), "sh", marker);
        List<String> answers = new ArrayList<>();
        for (String line : block.lines().filter(l -> l.startsWith("curl ")).toList()) {
            String command = line.replaceFirst("\\s+#.*$", "");
            for (Map.Entry<String, String> r : replacements.entrySet()) {
                command = command.replace(r.getKey(), r.getValue());
            }
            command = "curl -s -o /dev/null -w '%{http_version} %{http_code}' " + command.substring("curl ".length());
            Process curl = new ProcessBuilder("bash", "-c", command).directory(dir.toFile()).redirectErrorStream(true)
                    .start();
            String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!curl.waitFor(30, TimeUnit.SECONDS) || curl.exitValue() != 0) {
                throw new AssertionError("`" + command + "` failed: " + output);
            }
            answers.add(output.strip());
        }
        return answers;
    }
}
