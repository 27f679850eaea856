package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.e2e.support.Http;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.Stack;
import io.tollgate.rules.domain.DocBlocks;
import io.tollgate.rules.domain.DocBlocks.Block;

/**
 * docs/getting-started.md, run as a reader runs it: every shell block in order (but those marked not-run) with
 * bash, against a stack loaded with the demo as {@code ./tollgate up} loads it, the page's ports replaced by the
 * stack's. Each block must exit 0; where the page shows what a command prints (a block right after it), the
 * output must have that shape: the same status, every header the page shows, the same problem type and fields;
 * a line of statuses as long, turning from 200 to 429 as the page's does. The values the page says vary (the
 * seconds in {@code t=}) are not compared; a line of statuses marked {@value #SHAPE_ONLY} (how many pass depends on
 * how fast the machine sends them) must be as long, start as the page's and hold no other status.
 */
class GettingStartedTest {

    private static final Path PAGE = DocBlocks.root().resolve("docs/getting-started.md");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern STATUS_LINE = Pattern.compile("^HTTP/\\S+ (\\d{3})");
    private static final Pattern STATUSES = Pattern.compile("^(\\d{3} )*\\d{3}$");
    /** The rules service's writes: after one, the next block runs once the gateway holds the new version. */
    /** Marks a shown output whose length and turn are checked, not where the turn falls. */
    static final String SHAPE_ONLY = "<!-- example: shape-only";
    private static final Pattern RULES_WRITE = Pattern.compile("-X (POST|PUT|DELETE|PATCH) [^|]*127\\.0\\.0\\.1:8081");

    @Test
    void thePageRunsAsWritten() throws Exception {
        try (Stack stack = Stack.start(1, Map.of())) {
            loadTheDemo(stack);
            JavaService gateway = stack.gateways().get(0);
            await("the gateway holds the demo's rules and clients").atMost(Duration.ofSeconds(30))
                    .until(() -> holds(gateway, stack.rulesVersion(), demoClients()));

            Map<String, String> ports = new LinkedHashMap<>();
            ports.put("127.0.0.1:8080", "127.0.0.1:" + gateway.port());
            ports.put("127.0.0.1:8081", "127.0.0.1:" + stack.rulesService().port());
            ports.put("127.0.0.1:9000", stripScheme(gateway.managementUrl("")));
            ports.put("127.0.0.1:9090", stripScheme(stack.backendUrl("")));

            List<Block> blocks = DocBlocks.of(PAGE);
            List<String> lines = Files.readAllLines(PAGE);
            List<String> failures = new ArrayList<>();
            int run = 0;
            int compared = 0;
            for (int i = 0; i < blocks.size(); i++) {
                Block block = blocks.get(i);
                if (!block.language().equals("sh") || block.notRun()) {
                    continue;
                }
                run++;
                Result result = bash(localised(block.text(), ports));
                if (result.exit() != 0) {
                    failures.add(block.where() + ": exit " + result.exit() + "\n" + result.output());
                    continue;
                }
                Block shown = i + 1 < blocks.size() && follows(blocks.get(i + 1), block) ? blocks.get(i + 1) : null;
                if (shown != null && shown.language().isEmpty()) {
                    compared++;
                    boolean shapeOnly = lines.get(shown.line() - 2).startsWith(SHAPE_ONLY);
                    String mismatch = mismatch(shown.text(), result.output(), shapeOnly);
                    if (mismatch != null) {
                        failures.add(block.where() + ": " + mismatch + "\n--- the page shows:\n" + shown.text()
                                + "--- the stack printed:\n" + result.output());
                    }
                }
                if (RULES_WRITE.matcher(block.text()).find()) {
                    long version = stack.rulesVersion();
                    await("the gateway holds rules version " + version).atMost(Duration.ofSeconds(10))
                            .until(() -> holds(gateway, version, 0));
                }
            }
            assertThat(run).as("shell blocks run").isGreaterThanOrEqualTo(8);
            assertThat(compared).as("outputs compared with the page").isGreaterThanOrEqualTo(5);
            assertThat(failures).as("blocks that did not do what the page says").isEmpty();
        }
    }

    /** What {@code ./tollgate up} loads on a new database: demo/rules.yaml, demo/tenants, demo/clients.ndjson. */
    private static void loadTheDemo(Stack stack) throws IOException {
        Path demo = DocBlocks.root().resolve("demo");
        write(stack, "PUT", "/api/v1/rules", "application/yaml", Files.readString(demo.resolve("rules.yaml")));
        try (Stream<Path> tenants = Files.list(demo.resolve("tenants"))) {
            for (Path tenant : tenants.filter(f -> f.toString().endsWith(".json")).toList()) {
                String id = tenant.getFileName().toString().replace(".json", "");
                write(stack, "PUT", "/api/v1/tenants/" + id, "application/json", Files.readString(tenant));
            }
        }
        write(stack, "PUT", "/api/v1/clients", "application/x-ndjson", Files.readString(demo.resolve("clients.ndjson")));
    }

    private static void write(Stack stack, String method, String path, String type, String body) {
        Map<String, String> headers = new HashMap<>(Stack.ADMIN);
        headers.put("Content-Type", type);
        HttpResponse<String> answer = Http.send(method, stack.rulesService().url(path), headers, body);
        assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isBetween(200, 299);
    }

    private static long demoClients() throws IOException {
        return Files.readAllLines(DocBlocks.root().resolve("demo/clients.ndjson")).stream().filter(l -> !l.isBlank())
                .count();
    }

    /** Whether the gateway's readiness reports rules {@code version} (or later) and at least {@code clients}. */
    private static boolean holds(JavaService gateway, long version, long clients) throws IOException {
        JsonNode checks = JSON.readTree(Http.get(gateway.managementUrl("/q/health/ready"), Map.of()).body())
                .path("checks");
        long rules = -1;
        long known = -1;
        for (JsonNode check : checks) {
            if (check.path("name").asText().equals("rules")) {
                rules = check.path("data").path("version").asLong(-1);
            } else if (check.path("name").asText().equals("directory")) {
                known = check.path("data").path("clients").asLong(-1);
            }
        }
        return rules >= version && known >= clients;
    }

    /** A block as this stack runs it: the page's ports made the stack's, the admin token the stack's. */
    private static String localised(String text, Map<String, String> ports) {
        String local = text.replace("dev-admin-token", Stack.ADMIN_TOKEN);
        for (Map.Entry<String, String> port : ports.entrySet()) {
            local = local.replace(port.getKey(), port.getValue());
        }
        return local;
    }

    private static String stripScheme(String url) {
        return url.substring("http://".length()).replaceAll("/$", "");
    }

    /** Whether {@code next} stands right after {@code block}, with at most a blank line and a marker between. */
    private static boolean follows(Block next, Block block) {
        long lines = block.text().chars().filter(c -> c == '\n').count();
        return next.line() <= block.line() + lines + 4; // the closing fence, a blank line, a marker
    }

    /**
     * What differs between what the page shows and what the stack printed, by shape; null when they agree.
     */
    static String mismatch(String shown, String printed, boolean shapeOnly) {
        String page = shown.strip();
        String out = printed.replace("\r", "").strip();
        if (STATUSES.matcher(page).matches()) {
            return statuses(page, out, shapeOnly);
        }
        Matcher status = STATUS_LINE.matcher(page);
        if (status.find()) {
            return answer(page, out, status.group(1));
        }
        return null; // a page block of another kind is prose for the eye, not a promise of shape
    }

    private static String statuses(String page, String out, boolean shapeOnly) {
        if (!STATUSES.matcher(out).matches()) {
            return "not a line of statuses";
        }
        List<String> expected = Arrays.asList(page.split(" "));
        List<String> actual = Arrays.asList(out.split(" "));
        if (expected.size() != actual.size()) {
            return expected.size() + " statuses on the page, " + actual.size() + " printed";
        }
        if (!expected.get(0).equals(actual.get(0))) {
            return "the first status differs";
        }
        if (shapeOnly) {
            return expected.containsAll(actual) ? null : "a status the page does not show";
        }
        if (!expected.get(expected.size() - 1).equals(actual.get(actual.size() - 1)) || !turnsOnce(actual)) {
            return "the statuses do not turn once, from " + expected.get(0) + " to "
                    + expected.get(expected.size() - 1);
        }
        return null;
    }

    /** Whether the statuses are a run of the first and then a run of the last. */
    private static boolean turnsOnce(List<String> statuses) {
        int turns = 0;
        for (int i = 1; i < statuses.size(); i++) {
            if (!statuses.get(i).equals(statuses.get(i - 1))) {
                turns++;
            }
        }
        return turns <= 1;
    }

    private static String answer(String page, String out, String expectedStatus) {
        Matcher printed = STATUS_LINE.matcher(out);
        if (!printed.find() || !printed.group(1).equals(expectedStatus)) {
            return "the status is not " + expectedStatus;
        }
        String[] pageParts = page.split("\n\n", 2);
        String[] outParts = out.split("\n\n", 2);
        for (String line : pageParts[0].split("\n")) {
            int colon = line.indexOf(':');
            if (line.startsWith("HTTP/") || colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            boolean present = outParts[0].lines().anyMatch(l -> l.toLowerCase(Locale.ROOT).startsWith(name + ":"));
            if (!present) {
                return "no " + line.substring(0, colon) + " header";
            }
        }
        if (pageParts.length > 1 && pageParts[1].strip().startsWith("{")) {
            if (outParts.length < 2) {
                return "no body";
            }
            try {
                JsonNode shown = JSON.readTree(pageParts[1].strip());
                JsonNode got = JSON.readTree(outParts[1].strip());
                List<String> shownFields = new ArrayList<>();
                shown.fieldNames().forEachRemaining(shownFields::add);
                List<String> gotFields = new ArrayList<>();
                got.fieldNames().forEachRemaining(gotFields::add);
                if (!gotFields.containsAll(shownFields)) {
                    return "the body lacks some of " + shownFields;
                }
                if (shown.has("type") && !shown.path("type").equals(got.path("type"))) {
                    return "the problem's type is " + got.path("type");
                }
            } catch (IOException e) {
                return "the body is not JSON: " + e.getMessage();
            }
        }
        return null;
    }

    private record Result(int exit, String output) {
    }

    /** Runs {@code script} with bash from the repository's root, as a reader would; at most a minute. */
    private static Result bash(String script) throws IOException, InterruptedException {
        Path output = Files.createTempFile("getting-started", ".out");
        try {
            ProcessBuilder builder = new ProcessBuilder("bash", "-e", "-o", "pipefail", "-c", script)
                    .redirectErrorStream(true).redirectOutput(output.toFile()).directory(DocBlocks.root().toFile());
            builder.environment().put("TOLLGATE_ADMIN_TOKEN", Stack.ADMIN_TOKEN);
            Process process = builder.start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                return new Result(-1, "still running after 60 s: " + Files.readString(output));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
