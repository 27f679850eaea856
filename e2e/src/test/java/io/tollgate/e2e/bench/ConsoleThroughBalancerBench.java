package io.tollgate.e2e.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Browser;
import io.tollgate.e2e.support.Console;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * The driver of bench/console/two-instances.sh (a benchmark, not a test: its name keeps it out of the e2e run): a
 * console page in headless Chromium, served by two rules-service instances on one database behind nginx (round
 * robin, no stickiness), against the same page served by one of them directly, in the same run, taking turns
 * (the order flips every round), a cold cache for every load, after a round not counted. Per load: Navigation
 * Timing's {@code domInteractive}, and the page's {@code console-ready} mark (its data, fetched through the same
 * path, is shown). Writes a Markdown table of the medians to the file named by {@code tollgate.bench.out}.
 * <p>
 * System properties: {@code tollgate.bench.out} (required), {@code tollgate.bench.rounds} (15),
 * {@code tollgate.bench.page} ({@code /console/rules}).
 */
class ConsoleThroughBalancerBench {

    private static final Logger LOG = Logger.getLogger(ConsoleThroughBalancerBench.class);
    private static final String TIMES = """
            const nav = performance.getEntriesByType('navigation')[0];
            const ready = performance.getEntriesByName('console-ready', 'mark')[0];
            return [nav.domInteractive, ready ? ready.startTime : -1, location.pathname];
            """;

    @Test
    void run() throws IOException {
        Path out = Path.of(System.getProperty("tollgate.bench.out"));
        int rounds = Integer.getInteger("tollgate.bench.rounds", 15);
        String page = System.getProperty("tollgate.bench.page", "/console/rules");
        try (Stack stack = Stack.behindBalancer(0, Map.of()); Browser browser = new Browser()) {
            // what the rules page shows: 20 rules, as bench/console/run.sh gives it
            for (int i = 1; i <= 20; i++) {
                stack.putRule("bench.r" + i, Rules.perApiKey("bench.r" + i, "/svc" + i + "/**", 100, "1m", "closed"));
            }
            Map<String, Console> via = new LinkedHashMap<>();
            via.put("two instances behind nginx", new Console(browser, stack.balancer().url("")));
            via.put("one instance", new Console(browser, stack.rulesService().url("")));
            // one session for both: the cookie is the host's (ports apart), and both ways reach the one database
            via.values().iterator().next().login(Stack.ADMIN_TOKEN);

            Map<String, List<double[]>> loads = new LinkedHashMap<>();
            via.keySet().forEach(name -> loads.put(name, new ArrayList<>()));
            List<String> names = new ArrayList<>(via.keySet());
            List<String> reversed = List.of(names.get(1), names.get(0));
            for (int round = 0; round <= rounds; round++) {
                for (String name : round % 2 == 0 ? names : reversed) {
                    double[] times = load(browser, via.get(name), page);
                    if (round > 0) {
                        loads.get(name).add(times);
                    }
                }
                LOG.infof("round %d of %d", round, rounds);
            }
            Files.writeString(out, table(page, rounds, loads));
        }
    }

    /** One cold load of {@code page}: domInteractive and the console-ready mark, in ms. */
    private static double[] load(Browser browser, Console console, String page) {
        browser.clearCache();
        browser.open(console.url(page));
        browser.until(page + " console-ready", d -> (Boolean) browser.script(
                "return performance.getEntriesByName('console-ready', 'mark').length > 0"));
        List<?> times = (List<?>) browser.script(TIMES);
        if (!page.equals(times.get(2))) {
            throw new IllegalStateException(page + " led to " + times.get(2) + " through " + console.url(""));
        }
        return new double[]{((Number) times.get(0)).doubleValue(), ((Number) times.get(1)).doubleValue()};
    }

    private static String table(String page, int rounds, Map<String, List<double[]>> loads) {
        StringBuilder table = new StringBuilder();
        table.append("`").append(page).append("`, cold cache, median of ").append(rounds)
                .append(" loads each, taking turns:\n\n");
        table.append("| served by | domInteractive, ms | console-ready, ms |\n|---|---:|---:|\n");
        loads.forEach((name, times) -> table.append("| %s | %.1f | %.1f |%n".formatted(name, median(times, 0),
                median(times, 1))));
        List<List<double[]>> two = new ArrayList<>(loads.values());
        table.append("| **two ÷ one** | **%.2f** | **%.2f** |%n".formatted(median(two.get(0), 0) / median(two.get(1), 0),
                median(two.get(0), 1) / median(two.get(1), 1)));
        table.append("\nEvery load, ms (domInteractive / console-ready):\n\n");
        loads.forEach((name, times) -> table.append("- ").append(name).append(": ").append(String.join(", ",
                times.stream().map(t -> "%.0f/%.0f".formatted(t[0], t[1])).toList())).append('\n'));
        return table.toString();
    }

    private static double median(List<double[]> loads, int column) {
        double[] sorted = loads.stream().mapToDouble(t -> t[column]).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
