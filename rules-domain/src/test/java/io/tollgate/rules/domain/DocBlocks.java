package io.tollgate.rules.domain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the user documentation ({@code docs/*.md}), for the tests that keep its examples
 * true: this module's {@code DocumentedRulesTest} and e2e's {@code DocsRunTest}. A block
 * right after the line {@code <!-- example: not-run (why) -->} is marked as one that cannot run as written; the
 * line right before a block, when it is such a comment, is the block's marker.
 */
public final class DocBlocks {

    /** The marker line that excludes the next block from every check. */
    public static final String NOT_RUN = "<!-- example: not-run";
    /** How every marker line starts. */
    private static final String MARKER = "<!-- example:";

    /**
     * One fenced block.
     *
     * @param page
     * the Markdown file
     * @param line
     * the line of its opening fence, from 1
     * @param language
     * the first word after the fence ({@code json}, {@code yaml}, {@code sh}), empty when none
     * @param text
     * its content, without the fences
     * @param marker
     * the {@code <!-- example: ... -->} line right before it, empty when none
     */
    public record Block(Path page, int line, String language, String text, String marker) {

        /** Whether the line before it marks it as one that cannot run as written. */
        public boolean notRun() {
            return marker.startsWith(NOT_RUN);
        }

        /** {@code docs/rules.md:12}, for messages. */
        public String where() {
            return root().relativize(page.toAbsolutePath()) + ":" + line;
        }
    }

    private DocBlocks() {
    }

    /** The repository's root: the first folder above the working directory that holds {@code ./tollgate}. */
    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("tollgate"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no repository root (a folder holding ./tollgate) above "
                    + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** Every page of {@code docs/}, by name. */
    public static List<Path> pages() {
        try (Stream<Path> files = Files.list(root().resolve("docs"))) {
            return files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fenced blocks of one page, in order. */
    public static List<Block> of(Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        String previous = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                String language = line.substring(3).strip().split("\\s+", 2)[0];
                int start = i;
                StringBuilder text = new StringBuilder();
                for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                    text.append(lines.get(i)).append('\n');
                }
                blocks.add(new Block(page, start + 1, language, text.toString(), previous.startsWith(MARKER) ? previous : ""));
                previous = "";
            } else if (!line.isBlank()) {
                previous = line.strip();
            }
        }
        return blocks;
    }
}
