package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of every Markdown file of the repository leads somewhere: the file or folder exists, and
 * an {@code #anchor} names a heading of the target (as GitHub makes anchors of headings). Links in code (fenced
 * blocks, inline code) are not links.
 */
class MarkdownLinksTest {

    private static final Set<String> SKIPPED_FOLDERS = Set.of("target", ".git", ".tollgate", "node_modules", ".mvn");
    private static final Pattern INLINE = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    void everyRelativeLinkLeadsToAFileAndHeading() {
        List<Path> pages = markdownFiles();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (Link link : links(page)) {
                checked++;
                problem(page, link.target()).ifPresent(p -> broken.add(Repo.ROOT.relativize(page) + ":" + link.line()
                        + ": " + link.target() + " (" + p + ")"));
            }
        }
        assertThat(checked).as("relative links found in %d Markdown files", pages.size()).isGreaterThan(10);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertThat(slug("When Redis fails")).isEqualTo("when-redis-fails");
        assertThat(slug("401: a key is missing")).isEqualTo("401-a-key-is-missing");
        assertThat(slug("Uploads with `Expect: 100-continue`")).isEqualTo("uploads-with-expect-100-continue");
        assertThat(slug("Clients, plans and tenants")).isEqualTo("clients-plans-and-tenants");
        assertThat(slug("gateway-service")).isEqualTo("gateway-service");
    }

    private record Link(int line, String target) {
    }

    private Optional<String> problem(Path page, String target) {
        String file = target;
        String anchor = null;
        int hash = target.indexOf('#');
        if (hash >= 0) {
            file = target.substring(0, hash);
            anchor = target.substring(hash + 1);
        }
        file = URLDecoder.decode(file, StandardCharsets.UTF_8);
        Path resolved = file.isEmpty()
                ? page
                : file.startsWith("/") ? Repo.ROOT.resolve(file.substring(1)) : page.getParent().resolve(file);
        resolved = resolved.normalize();
        if (!Files.exists(resolved)) {
            return Optional.of("no such file");
        }
        if (anchor != null && !anchor.isEmpty()) {
            if (!resolved.toString().endsWith(".md")) {
                return Optional.of("an anchor into a file that is not Markdown");
            }
            if (!anchorsOf(resolved).contains(anchor)) {
                return Optional.of("no heading makes #" + anchor);
            }
        }
        return Optional.empty();
    }

    /** The anchors of a page's headings, numbered as GitHub numbers repeated ones ({@code -1}, {@code -2}). */
    private Set<String> anchorsOf(Path page) {
        return anchors.computeIfAbsent(page, p -> {
            Set<String> found = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean inFence = false;
            for (String line : read(p)) {
                if (line.startsWith("```")) {
                    inFence = !inFence;
                } else if (!inFence && line.matches("^#{1,6}\\s+.*")) {
                    String slug = slug(line.replaceFirst("^#{1,6}\\s+", "").replaceFirst("\\s+#+\\s*$", ""));
                    int n = seen.merge(slug, 1, Integer::sum);
                    found.add(n == 1 ? slug : slug + "-" + (n - 1));
                }
            }
            return found;
        });
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
    static String slug(String heading) {
        String text = heading.strip().toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.append(c);
            } else if (c == ' ') {
                out.append('-');
            }
        }
        return out.toString();
    }

    /** The relative links of one page, outside code. */
    private static List<Link> links(Path page) {
        List<Link> links = new ArrayList<>();
        boolean inFence = false;
        List<String> lines = read(page);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.strip().startsWith("```")) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            String text = INLINE_CODE.matcher(line).replaceAll("");
            Matcher inline = INLINE.matcher(text);
            while (inline.find()) {
                add(links, i + 1, inline.group(1));
            }
            Matcher reference = REFERENCE.matcher(text);
            if (reference.matches()) {
                add(links, i + 1, reference.group(1));
            }
        }
        return links;
    }

    private static void add(List<Link> links, int line, String target) {
        if (!SCHEME.matcher(target).find()) {
            links.add(new Link(line, target));
        }
    }

    private static List<Path> markdownFiles() {
        try (Stream<Path> files = Files.walk(Repo.ROOT)) {
            return files.filter(f -> f.toString().endsWith(".md"))
                    .filter(f -> Stream.of(Repo.ROOT.relativize(f).toString().split("[/\\\\]"))
                            .noneMatch(SKIPPED_FOLDERS::contains))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
