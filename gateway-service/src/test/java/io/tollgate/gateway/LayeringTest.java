package io.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The gateway's packages stand in layers (docs/architecture.md, "Layers"): a package uses only packages of the
 * layers below its own, never one beside it or above it. Read from the imports of the main sources, so an arrow
 * from a lower package to a higher one, or a package placed in no layer, fails the build.
 */
class LayeringTest {

    /** From the bottom up. */
    static final List<List<String>> LAYERS = List.of(
            List.of("config"),
            List.of("key", "clients", "usage", "store"),
            List.of("rules", "proxy"),
            List.of("sync"),
            List.of("limiter.decision"),
            List.of("limiter.pipeline"),
            List.of("limiter.rejection"),
            List.of("limiter.guard"),
            List.of("limiter.lease", "limiter.settlement"),
            List.of("limiter.targets"),
            List.of("limiter"),
            List.of("warmup"),
            List.of("http"),
            List.of("admin"));

    private static final String BASE = "io.tollgate.gateway.";
    private static final Path SOURCES = Path.of("src/main/java/io/tollgate/gateway");
    /** An import of a gateway type: the package is what comes before the first name in upper case. */
    private static final Pattern IMPORT = Pattern
            .compile("^import (?:static )?" + Pattern.quote(BASE) + "((?:[a-z][a-z0-9]*\\.)*[a-z][a-z0-9]*)\\.[A-Z]",
                    Pattern.MULTILINE);

    @Test
    void everyPackageUsesOnlyTheLayersBelowIt() throws IOException {
        List<String> arrows = new ArrayList<>();
        List<String> unplaced = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String from = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
                if (layer(from) < 0) {
                    unplaced.add(from);
                    continue;
                }
                Matcher imported = IMPORT.matcher(Files.readString(file));
                while (imported.find()) {
                    String to = imported.group(1);
                    if (!to.equals(from) && layer(to) >= layer(from)) {
                        arrows.add(file.getFileName() + ": " + from + " -> " + to);
                    }
                }
            }
        }
        assertThat(unplaced).as("packages in no layer").isEmpty();
        assertThat(arrows).as("imports of a package beside or above the importing one").isEmpty();
    }

    @Test
    void theLayersNameEveryPackageOnce() throws IOException {
        List<String> named = LAYERS.stream().flatMap(List::stream).toList();
        assertThat(named).doesNotHaveDuplicates();
        try (Stream<Path> dirs = Files.walk(SOURCES)) {
            List<String> packages = dirs.filter(Files::isDirectory)
                    .filter(d -> !d.equals(SOURCES))
                    .map(d -> SOURCES.relativize(d).toString().replace('/', '.'))
                    .toList();
            assertThat(named).containsExactlyInAnyOrderElementsOf(packages);
        }
    }

    private static int layer(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(pkg)) {
                return i;
            }
        }
        return -1;
    }
}
