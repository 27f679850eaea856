package io.tollgate.e2e.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;
import org.openqa.selenium.TimeoutException;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.e2e.support.Browser;
import io.tollgate.e2e.support.Console;

/**
 * The driver of bench/console/run.sh (a benchmark, not a test): loads each console page in a real headless Chromium,
 * with a cold cache (emptied before the load) and then a warm one, and writes one JSON line per load: bytes
 * transferred (Navigation and Resource Timing's transferSize, the document and everything it fetched), the
 * document's domInteractive, when its last fetch ended (its data is in), and the page's own {@code console-ready}
 * mark when it sets one. The login page,
 * loaded without a session, is the baseline of the same service. A round of every page is run first and not
 * written, so the service's JIT is not what is measured.
 *
 * <p>
 * Arguments: the rules service's base URL, the admin token, the output file, the number of rounds, then the
 * pages' paths.
 */
public final class ConsoleWeight {

    private static final Logger LOG = Logger.getLogger(ConsoleWeight.class);
    private static final String BASELINE = "/console/login";
    /** How long a load waits for the page's fetches to settle: no new resource for this long. */
    private static final Duration QUIET = Duration.ofMillis(500);
    /** How long the first load of a page waits for its {@code console-ready} mark before taking it has none. */
    private static final Duration READY_MARK = Duration.ofSeconds(5);

    private static final String FIGURES = """
            const nav = performance.getEntriesByType('navigation')[0];
            const resources = performance.getEntriesByType('resource');
            const ready = performance.getEntriesByName('console-ready', 'mark')[0];
            const sum = (key) => resources.reduce((total, r) => total + r[key], nav[key]);
            return {transfer_bytes: sum('transferSize'), encoded_bytes: sum('encodedBodySize'),
                    decoded_bytes: sum('decodedBodySize'), document_transfer_bytes: nav.transferSize,
                    requests: 1 + resources.length, cached: resources.filter(r => r.transferSize === 0).length,
                    dom_interactive_ms: nav.domInteractive, load_ms: nav.loadEventEnd,
                    settled_ms: Math.max(nav.responseEnd, ...resources.map(r => r.responseEnd)),
                    ready_ms: ready ? ready.startTime : null, path: location.pathname};
            """;

    private final Browser browser;
    private final Console console;
    private final String token;
    private final Map<String, Boolean> marksReady = new LinkedHashMap<>();
    private final ObjectMapper json = new ObjectMapper();

    private ConsoleWeight(Browser browser, String base, String token) {
        this.browser = browser;
        this.console = new Console(browser, base);
        this.token = token;
    }

    public static void main(String[] args) throws IOException {
        String base = args[0];
        String token = args[1];
        Path out = Path.of(args[2]);
        int rounds = Integer.parseInt(args[3]);
        List<String> pages = List.of(args).subList(4, args.length);
        try (Browser browser = new Browser(); Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            ConsoleWeight bench = new ConsoleWeight(browser, base, token);
            bench.round(pages, 0, null);
            for (int round = 1; round <= rounds; round++) {
                LOG.infof("round %d of %d", round, rounds);
                bench.round(pages, round, writer);
            }
        }
    }

    /** The baseline, then every page, each cold then warm; written unless {@code writer} is null (the warm-up). */
    private void round(List<String> pages, int round, Writer writer) {
        browser.driver().manage().deleteAllCookies();
        measurePair(BASELINE, round, writer);
        console.login(token);
        for (String page : pages) {
            measurePair(page, round, writer);
        }
    }

    private void measurePair(String path, int round, Writer writer) {
        for (String cache : List.of("cold", "warm")) {
            Map<String, Object> figures = load(path, cache.equals("cold"));
            figures.put("page", path);
            figures.put("cache", cache);
            figures.put("round", round);
            if (writer != null) {
                write(writer, figures);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> load(String path, boolean cold) {
        if (cold) {
            browser.clearCache();
        }
        browser.open(console.url(path));
        browser.until(path + " loaded", d -> browser.script("return document.readyState").equals("complete"));
        awaitReadyMark(path);
        awaitQuiet(path);
        Map<String, Object> figures = new LinkedHashMap<>((Map<String, Object>) browser.script(FIGURES));
        if (!path.equals(figures.get("path"))) {
            throw new IllegalStateException(path + " led to " + figures.get("path") + ": is the session valid?");
        }
        return figures;
    }

    /** Waits for the page's {@code console-ready} mark when the page sets one (learnt on its first load). */
    private void awaitReadyMark(String path) {
        String hasMark = "return performance.getEntriesByName('console-ready', 'mark').length > 0";
        Boolean marks = marksReady.get(path);
        if (marks == null) {
            try {
                browser.until(path + " console-ready", READY_MARK, d -> (Boolean) browser.script(hasMark));
                marks = true;
            } catch (TimeoutException e) {
                marks = false;
                LOG.infof("%s sets no console-ready mark", path);
            }
            marksReady.put(path, marks);
        } else if (marks) {
            browser.until(path + " console-ready", d -> (Boolean) browser.script(hasMark));
        }
    }

    /** Waits until the page has fetched nothing new for {@link #QUIET}: its own API calls are part of its weight. */
    private void awaitQuiet(String path) {
        long[] last = {-1, System.nanoTime()};
        browser.until(path + " quiet", d -> {
            long count = ((Number) browser.script("return performance.getEntriesByType('resource').length")).longValue();
            if (count != last[0]) {
                last[0] = count;
                last[1] = System.nanoTime();
                return false;
            }
            return System.nanoTime() - last[1] >= QUIET.toNanos();
        });
    }

    private void write(Writer writer, Map<String, Object> figures) {
        try {
            writer.write(json.writeValueAsString(figures));
            writer.write('\n');
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
