package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * No import cycle in rules-domain, between its classes or between its packages: what a class uses, nothing it
 * uses uses back, so each can be read, and changed, from the bottom up (a value does not depend on what checks
 * it). Read from the main sources, as the gateway's {@code LayeringTest} reads its layers: a class uses another
 * of the module by importing it, naming it in full, or, in its own package, naming it at all; comments and
 * string literals are left out, so a Javadoc link or a message naming a class is no use of it. A cycle fails the
 * build with its classes in order.
 */
class LayeringTest {

    private static final String BASE = "io.tollgate.rules.domain";
    private static final Path SOURCES = Path.of("src/main/java/io/tollgate/rules/domain");
    /** A type of the module named in full (an import or in code): its package's tail, then its top-level type. */
    private static final Pattern QUALIFIED = Pattern
            .compile("\\b" + Pattern.quote(BASE) + "((?:\\.[a-z][a-z0-9]*)*)\\.([A-Z][A-Za-z0-9_]*)");
    private static final Pattern WILDCARD = Pattern
            .compile("^import (?:static )?" + Pattern.quote(BASE) + "[a-z0-9.]*\\*;", Pattern.MULTILINE);
    /** A type imported from anywhere: its simple name hides a class of the importing package with that name. */
    private static final Pattern IMPORTED = Pattern.compile("^import ([\\w.]+)\\.([A-Z]\\w*);", Pattern.MULTILINE);
    private static final Pattern TYPE_NAME = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");
    /** Comments, text blocks, string and character literals. */
    private static final Pattern NOT_CODE = Pattern.compile(
            "/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'", Pattern.DOTALL);

    @Test
    void noClassUsesOneThatUsesItBack() throws IOException {
        Map<String, Set<String>> uses = classUses();

        assertThat(uses).as("the module's classes").hasSizeGreaterThan(30);
        assertThat(cycles(uses)).as("import cycles between classes, one per tangle (%s)", tangles(uses)).isEmpty();
    }

    @Test
    void noPackageUsesOneThatUsesItBack() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        classUses().forEach((from, used) -> {
            Set<String> packages = uses.computeIfAbsent(packageOf(from), p -> new TreeSet<>());
            used.stream().map(LayeringTest::packageOf).filter(p -> !p.equals(packageOf(from))).forEach(packages::add);
        });

        assertThat(cycles(uses)).as("import cycles between packages, one per tangle (%s)", tangles(uses)).isEmpty();
    }

    @Test
    void noWildcardImportOfTheModulesOwnPackages() throws IOException {
        List<String> wildcards = new ArrayList<>();
        for (Path file : sources()) {
            Matcher wildcard = WILDCARD.matcher(Files.readString(file));
            while (wildcard.find()) {
                wildcards.add(file.getFileName() + ": " + wildcard.group());
            }
        }
        assertThat(wildcards).as("wildcard imports hide what a class uses").isEmpty();
    }

    /** The check itself: a cycle is found, in order, with what leads into it left out. */
    @Test
    void aCycleIsFoundWithItsClassesInOrder() {
        Map<String, Set<String>> uses = new TreeMap<>(Map.of("Rule", Set.of("Settle", "Limits"), "Settle",
                Set.of("Constraints", "Rule"), "Limits", Set.of("Constraints"), "Constraints", Set.of(), "RuleCodec",
                Set.of("Rule")));

        assertThat(cycles(uses)).containsExactly(List.of("Rule", "Settle", "Rule"));
        uses.put("Settle", Set.of("Constraints"));
        assertThat(cycles(uses)).isEmpty();
    }

    /** Each main class, named as {@link #name} names it, and the module's classes it uses. */
    private static Map<String, Set<String>> classUses() throws IOException {
        List<Path> files = sources();
        Map<String, Set<String>> classesOf = new HashMap<>();
        for (Path file : files) {
            classesOf.computeIfAbsent(packageOf(name(file)), p -> new HashSet<>()).add(simpleName(file));
        }
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path file : files) {
            String from = name(file);
            String source = Files.readString(file);
            Set<String> used = new TreeSet<>();
            Set<String> hidden = new HashSet<>();
            Matcher imported = IMPORTED.matcher(source);
            while (imported.find()) {
                hidden.add(imported.group(2));
            }
            String code = NOT_CODE.matcher(source).replaceAll(" ");
            Matcher qualified = QUALIFIED.matcher(code);
            while (qualified.find()) {
                used.add(qualified(qualified.group(1).replaceFirst("^\\.", ""), qualified.group(2)));
            }
            Matcher named = TYPE_NAME.matcher(code);
            while (named.find()) {
                String name = named.group();
                if (classesOf.get(packageOf(from)).contains(name) && !hidden.contains(name)) {
                    used.add(qualified(packageOf(from), name));
                }
            }
            used.remove(from);
            uses.put(from, used);
        }
        return uses;
    }

    /** The groups of more than one node that reach each other: each holds at least one cycle. */
    static List<Set<String>> tangles(Map<String, Set<String>> uses) {
        return new Components(uses).groups.stream().filter(group -> group.size() > 1).toList();
    }

    /**
     * One cycle of each group of nodes that reach each other (Tarjan's strongly connected components), as the
     * shortest way from its first node back to it.
     */
    static List<List<String>> cycles(Map<String, Set<String>> uses) {
        return tangles(uses).stream().map(group -> shortestWayBack(group.iterator().next(), group, uses)).toList();
    }

    private static List<String> shortestWayBack(String start, Set<String> group, Map<String, Set<String>> uses) {
        Map<String, String> cameFrom = new LinkedHashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String at = queue.poll();
            for (String next : new TreeSet<>(uses.getOrDefault(at, Set.of()))) {
                if (next.equals(start)) {
                    List<String> way = new ArrayList<>(List.of(start));
                    for (String back = at; !back.equals(start); back = cameFrom.get(back)) {
                        way.add(1, back);
                    }
                    way.add(start);
                    return way;
                }
                if (group.contains(next) && !cameFrom.containsKey(next)) {
                    cameFrom.put(next, at);
                    queue.add(next);
                }
            }
        }
        throw new IllegalStateException(start + " is in a group with no way back to it: " + group);
    }

    /** Tarjan's algorithm, recursive: the module is small. */
    private static final class Components {

        final List<Set<String>> groups = new ArrayList<>();
        private final Map<String, Set<String>> uses;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();

        Components(Map<String, Set<String>> uses) {
            this.uses = uses;
            for (String node : new TreeSet<>(uses.keySet())) {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            }
        }

        private void visit(String node) {
            index.put(node, index.size());
            low.put(node, index.get(node));
            stack.push(node);
            onStack.add(node);
            for (String next : new TreeSet<>(uses.getOrDefault(node, Set.of()))) {
                if (!index.containsKey(next)) {
                    visit(next);
                    low.put(node, Math.min(low.get(node), low.get(next)));
                } else if (onStack.contains(next)) {
                    low.put(node, Math.min(low.get(node), index.get(next)));
                }
            }
            if (low.get(node).equals(index.get(node))) {
                Set<String> group = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    group.add(member);
                } while (!member.equals(node));
                groups.add(group);
            }
        }
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    /** {@code package.Class} below the module's package; just {@code Class} in the module's own package. */
    private static String name(Path file) {
        return qualified(SOURCES.relativize(file.getParent()).toString().replace('/', '.'), simpleName(file));
    }

    private static String qualified(String pkg, String simpleName) {
        return pkg.isEmpty() ? simpleName : pkg + "." + simpleName;
    }

    private static String simpleName(Path file) {
        return file.getFileName().toString().replaceFirst("\\.java$", "");
    }

    /** The package below the module's package; empty for the module's own. */
    private static String packageOf(String name) {
        return name.lastIndexOf('.') < 0 ? "" : name.substring(0, name.lastIndexOf('.'));
    }
}
