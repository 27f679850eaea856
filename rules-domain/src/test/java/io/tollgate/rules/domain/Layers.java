package io.tollgate.rules.domain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A module's packages in layers, read from the imports of its main sources: what each service's
 * {@code LayeringTest} checks (a package uses only packages of the layers below its own).
 *
 * @param sources the main sources' root package directory, e.g. {@code src/main/java/io/tollgate/gateway}
 * @param base that package's name with a dot, e.g. {@code io.tollgate.gateway.}
 * @param layers the packages under {@code base}, from the bottom up
 * @param below packages under {@code base} of another module, which every package may use
 */
public record Layers(Path sources, String base, List<List<String>> layers, Set<String> below) {

    /** Every import of a package beside or above the importing one, as {@code File.java: from -> to}. */
    public List<String> arrowsUpOrAcross() throws IOException {
        Pattern imports = Pattern.compile(
                "^import (?:static )?" + Pattern.quote(base) + "((?:[a-z][a-z0-9]*\\.)*[a-z][a-z0-9]*)\\.[A-Z]",
                Pattern.MULTILINE);
        List<String> arrows = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String from = packageOf(file.getParent());
                if (layer(from) < 0) {
                    continue;
                }
                Matcher imported = imports.matcher(Files.readString(file));
                while (imported.find()) {
                    String to = imported.group(1);
                    if (!to.equals(from) && !below.contains(to) && layer(to) >= layer(from)) {
                        arrows.add(file.getFileName() + ": " + from + " -> " + to);
                    }
                }
            }
        }
        return arrows;
    }

    /** The packages under {@code sources}, each as its name below {@code base}. */
    public List<String> packages() throws IOException {
        try (Stream<Path> dirs = Files.walk(sources)) {
            return dirs.filter(Files::isDirectory).filter(d -> !d.equals(sources)).map(this::packageOf).toList();
        }
    }

    /** The packages the layers name, each as often as named. */
    public List<String> named() {
        return layers.stream().flatMap(List::stream).toList();
    }

    private String packageOf(Path dir) {
        return sources.relativize(dir).toString().replace('/', '.');
    }

    private int layer(String pkg) {
        for (int i = 0; i < layers.size(); i++) {
            if (layers.get(i).contains(pkg)) {
                return i;
            }
        }
        return -1;
    }
}
