package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import io.tollgate.e2e.support.DemoState;
import io.tollgate.e2e.support.DocShapes;
import io.tollgate.e2e.support.JavaService;
import io.tollgate.e2e.support.PageShell;
import io.tollgate.e2e.support.Stack;
import io.tollgate.rules.domain.DocBlocks;
import io.tollgate.rules.domain.DocBlocks.Block;

/**
 * Every page of docs/ and the README, run as a reader runs it after {@code ./tollgate up}: each shell block in
 * order, in one shell a page, against one stack loaded with the demo as {@code up} loads it (restored before each
 * page, so each page starts from the loaded demo), the page's ports replaced by the stack's and
 * {@code .tollgate/admin-token} by a file holding the token this stack made. Each block must exit 0; where the page
 * shows what a command prints (a block right after it), the output must have that shape ({@link DocShapes}). A
 * block marked {@value #SHAPE_ONLY} shows a line of statuses whose turn depends on the machine's speed; one marked
 * {@value #UNTIL_STOPPED} runs until the reader stops it (a stream): it is stopped after a few seconds, having
 * printed something. A block marked {@code <!-- example: not-run (reason: why) -->} is not run, and its reason
 * must be one of {@link #REASONS}.
 */
class DocsRunTest {

    /** Why a block may not run here; anything else runs. */
    static final Map<String, String> REASONS = Map.of(
            "needs-docker", "it runs Docker or its compose file",
            "needs-kubernetes", "it needs a Kubernetes cluster",
            "needs-unpackaged-tool", "it needs a tool that no package registry reached here serves",
            "needs-tls-stack", "it needs the gateway's HTTPS port, which ./tollgate up --tls opens",
            "another-stack",
            "it starts, or talks to, a stack other than the one up starts: up itself, the tests, dev mode, a benchmark");
    static final String SHAPE_ONLY = "<!-- example: shape-only";
    static final String UNTIL_STOPPED = "<!-- example: runs-until-stopped";
    private static final Pattern REASON = Pattern.compile("^<!-- example: not-run \\(([a-z-]+)[:)]");
    /** The rules service's writes: after one, the next block runs once the gateways hold what it wrote. */
    private static final Pattern RULES_WRITE = Pattern.compile("-X (POST|PUT|DELETE|PATCH) [^|]*127\\.0\\.0\\.1:8081");
    private static final Pattern EXPECT = Pattern.compile("#\\s*expect\\s+(\\d{3})");
    private static final int BLOCK_SECONDS = 60;
    private static final int STREAM_SECONDS = 5;

    private static Stack stack;
    private static DemoState demo;
    private static Map<String, String> replacements;
    /** The URLs of the rules service and the gateway's management port, whose refusals a block must expect. */
    private static List<String> controlPlane;
    /** Every shell block of every page, and what became of it: the list the runner leaves in target/docs-run. */
    private static final List<String> LEDGER = new ArrayList<>();
    /** How many answers were compared with the one their page shows. */
    private static int compared;

    @BeforeAll
    static void startTheStack() throws IOException {
        // the stack counts a gateway live for 10 s after its last poll (TOLLGATE_GATEWAYS_LIVE_WINDOW), where up's
        // window outlasts up's poll: the live view and explain the pages call reach only live gateways, so this one
        // polls well within that window
        stack = Stack.start(1, Map.of("TOLLGATE_RULES_POLL_INTERVAL", "2s"));
        demo = new DemoState(stack);
        JavaService gateway = stack.gateways().get(0);
        Path token = Path.of("target", "docs-run", "admin-token").toAbsolutePath();
        Files.createDirectories(token.getParent());
        Files.writeString(token, Stack.ADMIN_TOKEN);
        String redis = stack.redis().addresses().get(0);
        replacements = new LinkedHashMap<>();
        replacements.put(".tollgate/admin-token", token.toString());
        replacements.put("127.0.0.1:8080", "127.0.0.1:" + gateway.port());
        replacements.put("127.0.0.1:8081", "127.0.0.1:" + stack.rulesService().port());
        replacements.put("127.0.0.1:9000", stripScheme(gateway.managementUrl("")));
        replacements.put("127.0.0.1:9001", stripScheme(stack.rulesService().managementUrl("")));
        replacements.put("127.0.0.1:9090", stripScheme(stack.backendUrl("")));
        controlPlane = List.of(stack.rulesService().url("/"), gateway.managementUrl("/"),
                stack.rulesService().managementUrl("/"));
        replacements.put("-p 7101", "-p " + redis.substring(redis.lastIndexOf(':') + 1));
    }

    @AfterAll
    static void stopTheStack() throws IOException {
        Files.write(Path.of("target", "docs-run", "blocks.txt"), LEDGER);
        if (stack != null) {
            stack.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyPageRunsAsWritten() {
        List<Path> pages = new ArrayList<>();
        pages.add(DocBlocks.root().resolve("README.md"));
        pages.add(DocBlocks.root().resolve("docs/getting-started.md"));
        DocBlocks.pages().stream().filter(p -> !pages.contains(p)).forEach(pages::add);
        Stream<DynamicTest> eachPage = pages.stream().map(
                page -> DynamicTest.dynamicTest(DocBlocks.root().relativize(page).toString(), () -> runs(page)));
        return Stream.concat(eachPage, Stream.of(DynamicTest.dynamicTest("the pages' blocks ran", () -> {
            assertThat(LEDGER.stream().filter(l -> l.endsWith(" run")).count()).as("shell blocks run")
                    .isGreaterThanOrEqualTo(50);
            assertThat(compared).as("answers compared with what the pages show").isGreaterThanOrEqualTo(15);
        })));
    }

    private static void runs(Path page) {
        List<Block> blocks = DocBlocks.of(page);
        if (blocks.stream().anyMatch(b -> isShell(b) && !b.notRun())) {
            demo.restore();
        }
        List<String> failures = new ArrayList<>();
        try (PageShell shell = new PageShell(replacements)) {
            for (int i = 0; i < blocks.size(); i++) {
                Block block = blocks.get(i);
                if (!isShell(block)) {
                    continue;
                }
                if (block.notRun()) {
                    Matcher reason = REASON.matcher(block.marker());
                    if (!reason.find() || !REASONS.containsKey(reason.group(1))) {
                        failures.add(block.where() + ": marked not-run without a reason of " + REASONS.keySet()
                                + ": " + block.marker());
                    }
                    LEDGER.add(block.where() + " marked " + (reason.find(0) ? reason.group(1) : "(no reason)"));
                    continue;
                }
                LEDGER.add(block.where() + " run");
                String failure = run(shell, block, i + 1 < blocks.size() ? blocks.get(i + 1) : null);
                if (failure != null) {
                    failures.add(failure);
                }
            }
        }
        assertThat(failures).as("blocks of " + page.getFileName() + " that did not do what the page says").isEmpty();
    }

    private static boolean isShell(Block block) {
        return block.language().equals("sh") || block.language().equals("bash");
    }

    /** Runs one block; what went wrong, or null. */
    private static String run(PageShell shell, Block block, Block next) {
        if (block.text().contains("dev-admin-token")) {
            return block.where() + ": uses dev-admin-token, which no stack of ./tollgate up has";
        }
        boolean stream = block.marker().startsWith(UNTIL_STOPPED);
        PageShell.Result result = shell.run(block.text(), stream ? STREAM_SECONDS : BLOCK_SECONDS);
        if (stream ? result.output().isBlank() : result.exit() != 0) {
            return block.where() + ": exit " + result.exit() + "\n" + result.printed();
        }
        String refused = refused(block, result);
        if (refused != null) {
            return refused;
        }
        if (RULES_WRITE.matcher(block.text()).find()) {
            demo.awaitGateways();
        }
        boolean shown = next != null && follows(next, block)
                && (next.language().isEmpty() || next.language().equals("json"));
        if (!shown || stream) {
            return null;
        }
        if (DocShapes.promises(next.text())) {
            compared++;
        }
        String mismatch = DocShapes.mismatch(next.text(), result.output(), next.marker().startsWith(SHAPE_ONLY));
        return mismatch == null
                ? null
                : block.where() + ": " + mismatch + "\n--- the page shows:\n" + next.text() + "--- the stack printed:\n"
                        + result.printed();
    }

    /**
     * A call of the control plane (the rules service, a gateway's management port) that the block made and that
     * was answered 400 or more, when no {@code # expect <status>} of the block names that status; null when none.
     */
    private static String refused(Block block, PageShell.Result result) {
        List<Integer> expected = new ArrayList<>();
        Matcher expect = EXPECT.matcher(block.text());
        while (expect.find()) {
            expected.add(Integer.parseInt(expect.group(1)));
        }
        for (PageShell.Call call : result.calls()) {
            boolean ofControlPlane = controlPlane.stream().anyMatch(call.url()::startsWith);
            if (ofControlPlane && call.status() >= 400 && !expected.contains(call.status())) {
                return block.where() + ": " + call.url() + " answered " + call.status()
                        + " (the block expects none of that)\n" + result.printed();
            }
        }
        return null;
    }

    /** Whether {@code next} stands right after {@code block}, with at most a blank line and a marker between. */
    private static boolean follows(Block next, Block block) {
        long lines = block.text().chars().filter(c -> c == '\n').count();
        return next.line() <= block.line() + lines + 4; // the closing fence, a blank line, a marker
    }

    private static String stripScheme(String url) {
        return url.substring("http://".length()).replaceAll("/$", "");
    }
}
