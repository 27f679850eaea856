package io.tollgate.rules.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A rule's {@code match.path} glob, e.g. {@code /orders/*}{@code /items} or {@code /orders/**}.
 * <ul>
 * <li>A pattern starts with {@code /}; segments are separated by single slashes; no empty segment and no
 * trailing slash (the pattern {@code /} alone matches only the root).</li>
 * <li>{@code *} as a whole segment matches exactly one non-empty segment.</li>
 * <li>{@code **} may appear ONLY as the last segment; it matches zero or more segments, so
 * {@code /orders/**} matches {@code /orders}, {@code /orders/1} and {@code /orders/1/items}.</li>
 * <li>Any other segment is literal and compared exactly (case-sensitive); a {@code *} inside a literal
 * segment ({@code /ord*}) is an error.</li>
 * </ul>
 * A request path is compared by its segments: empty segments ({@code //}, a trailing slash) are ignored,
 * and a query string must be removed by the caller.
 */
public final class PathPattern {

    /** An RFC 3986 path segment character (pchar), {@code *} excluded. */
    private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9._~!$&'()+,;=:@%-]+");
    private static final String ONE = "*";
    private static final String REST = "**";

    private final String glob;
    private final List<String> segments;
    private final boolean rest;

    private PathPattern(String glob, List<String> segments, boolean rest) {
        this.glob = glob;
        this.segments = segments;
        this.rest = rest;
    }

    /**
     * The pattern for {@code glob}.
     *
     * @throws IllegalArgumentException
     * naming what is wrong with the glob
     */
    public static PathPattern compile(String glob) {
        Optional<String> problem = problem(glob);
        if (problem.isPresent()) {
            throw new IllegalArgumentException(problem.get());
        }
        List<String> parts = split(glob);
        boolean rest = !parts.isEmpty() && parts.get(parts.size() - 1).equals(REST);
        List<String> fixed = rest ? parts.subList(0, parts.size() - 1) : parts;
        return new PathPattern(glob, List.copyOf(fixed), rest);
    }

    /** Why {@code glob} is not a valid pattern, or empty when it is. */
    public static Optional<String> problem(String glob) {
        if (glob == null || glob.isEmpty()) {
            return Optional.of("must not be empty");
        }
        if (!glob.startsWith("/")) {
            return Optional.of("must start with '/'");
        }
        if (glob.equals("/")) {
            return Optional.empty();
        }
        if (glob.endsWith("/")) {
            return Optional.of("must not end with '/' (use '/**' to match everything below)");
        }
        String[] parts = glob.substring(1).split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.isEmpty()) {
                return Optional.of("must not contain an empty segment ('//')");
            }
            if (part.equals(REST) && i != parts.length - 1) {
                return Optional.of("'**' may only be the last segment");
            }
            if (!part.equals(ONE) && !part.equals(REST) && !LITERAL.matcher(part).matches()) {
                return Optional.of("segment '" + part + "' is neither '*', '**' nor literal path characters");
            }
            if (part.indexOf(';') >= 0) {
                return Optional.of("segment '" + part + "' holds ';', which starts a segment's parameters: rules match "
                        + "paths without them");
            }
            CanonicalPath canonical = CanonicalPath.of("/" + part);
            if (canonical.refused() || !canonical.path().equals("/" + part)) {
                return Optional.of("segment '" + part + "' is not canonical: requests are matched in their canonical "
                        + "form, " + (canonical.refused()
                                ? canonical.problem()
                                : "write it '"
                                        + canonical.path().substring(1) + "'"));
            }
        }
        return Optional.empty();
    }

    /**
     * Whether a request path (without its query string) matches this pattern. Walks the path's segments in
     * place: this runs for every candidate rule of every request, so it allocates nothing.
     */
    public boolean matches(String path) {
        String given = path == null ? "" : path;
        int at = 0;
        for (String want : segments) {
            int start = segmentStart(given, at);
            if (start == given.length()) {
                return false; // fewer segments than the pattern
            }
            int end = given.indexOf('/', start);
            if (end < 0) {
                end = given.length();
            }
            if (!want.equals(ONE) && !(want.length() == end - start && given.startsWith(want, start))) {
                return false;
            }
            at = end;
        }
        return rest || segmentStart(given, at) == given.length();
    }

    /** Where the next non-empty segment at or after {@code at} starts, or the path's length when none. */
    private static int segmentStart(String path, int at) {
        while (at < path.length() && path.charAt(at) == '/') {
            at++;
        }
        return at;
    }

    /** The glob this pattern was compiled from. */
    public String glob() {
        return glob;
    }

    @Override
    public String toString() {
        return glob;
    }

    private static List<String> split(String path) {
        List<String> out = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                out.add(part);
            }
        }
        return out;
    }
}
