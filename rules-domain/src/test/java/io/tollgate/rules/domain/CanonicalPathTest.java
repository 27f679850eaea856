package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.tollgate.counter.testing.Draws;
import io.tollgate.counter.testing.Seeded;

/**
 * The canonical path against spellings a client tries, and as properties against a reference written from RFC 3986
 * §5.2.4 (remove_dot_segments) and §6.2.2 for what a decoding backend reads: 2000 cases each ({@link Seeded}: a
 * failure names its seed and the smallest case found).
 */
class CanonicalPathTest {

    @ParameterizedTest(name = "{0} -> {1} (matched as {2})")
    @CsvSource(delimiter = '|', value = {
            "/orders/1           | /orders/1          | /orders/1",
            "/                   | /                  | /",
            "/orders/            | /orders/           | /orders/",
            "/%6Frders/1         | /orders/1          | /orders/1",
            "/%6frders/%31       | /orders/1          | /orders/1",
            "/%2Eorders          | /.orders           | /.orders",
            "/./orders/1         | /orders/1          | /orders/1",
            "/x/../orders/1      | /orders/1          | /orders/1",
            "/x/%2E%2E/orders    | /orders            | /orders",
            "/x/%2e./orders      | /orders            | /orders",
            "//orders//1         | /orders/1          | /orders/1",
            "///orders           | /orders            | /orders",
            "/orders/1/.         | /orders/1/         | /orders/1/",
            "/orders/1/..        | /orders/           | /orders/",
            "/orders/..;x/admin  | /admin             | /admin",
            "/orders;jsessionid=1/2 | /orders;jsessionid=1/2 | /orders/2",
            "/orders/%e2%82%ac   | /orders/%E2%82%AC  | /orders/%E2%82%AC",
            "/a%3Ab%40c%2A       | /a:b@c*            | /a:b@c*",
            "/a%3Bb              | /a%3Bb             | /a%3Bb",
            "/a%3fb%23c%25       | /a%3Fb%23c%25      | /a%3Fb%23c%25",
            "/a\"b{c}            | /a%22b%7Bc%7D      | /a%22b%7Bc%7D",
            "/caf\u00c3\u00a9    | /caf%C3%A9         | /caf%C3%A9",
    })
    void spellingsBecomeOneCanonicalPath(String raw, String path, String match) {
        CanonicalPath canonical = CanonicalPath.of(raw);
        assertThat(canonical.problem()).as("problem").isNull();
        assertThat(canonical.path()).isEqualTo(path);
        assertThat(canonical.matchPath()).isEqualTo(match);
    }

    @ParameterizedTest(name = "{0} refused: {1}")
    @CsvSource(delimiter = '|', value = {
            "/orders%2F1      | separates segments",
            "/orders%2f1      | separates segments",
            "/orders%5C1      | separates segments",
            "/orders\\1       | separates segments",
            "/orders%00       | control character",
            "/orders%0a       | control character",
            "/orders%         | two hex digits",
            "/orders%4        | two hex digits",
            "/orders%zz       | two hex digits",
            "/..              | above the root",
            "/x/../..         | above the root",
            "/%2E%2E/orders   | above the root",
            "/..;x/orders     | above the root",
            "/%C0%AFetc       | not UTF-8",
            "/%E0%80%AF       | not UTF-8",
            "/%ED%A0%80       | not UTF-8",
            "/%FF             | not UTF-8",
            "/caf\u00c3       | not UTF-8",
            "orders           | starts with '/'",
            "*                | starts with '/'",
    })
    void pathsThatCannotBeMadeCanonicalSafelyAreRefused(String raw, String problem) {
        assertThat(CanonicalPath.of(raw).problem()).isNotNull().contains(problem);
    }

    @Test
    void canonicalIsAFixedPoint() {
        Seeded.forAll(2000, CanonicalPathTest::hostilePath, raw -> {
            CanonicalPath once = CanonicalPath.of(raw);
            if (once.refused()) {
                return;
            }
            CanonicalPath twice = CanonicalPath.of(once.path());
            assertThat(twice.problem()).isNull();
            assertThat(twice.path()).isEqualTo(once.path());
            assertThat(twice.matchPath()).isEqualTo(once.matchPath());
        });
    }

    /**
     * Whatever a decoding backend resolves a spelling to, the gateway either refuses it or reads the same path: two
     * spellings of one path never land in two buckets.
     */
    @Test
    void aBackendReadsWhatWasMatched() {
        Seeded.forAll(2000, CanonicalPathTest::hostilePath, raw -> {
            CanonicalPath canonical = CanonicalPath.of(raw);
            if (canonical.refused()) {
                return;
            }
            assertThat(Reference.backendReads(raw)).isEqualTo(Reference.backendReads(canonical.path()));
        });
    }

    /** A path and the seed of its respelling. */
    record Respelling(String path, long seed) {
    }

    @Test
    void respellingsOfOnePathLandInOneBucket() {
        Seeded.forAll(2000, d -> new Respelling(plainPath(d), d.between(0, Long.MAX_VALUE)), one -> {
            String path = one.path();
            String respelled = Reference.respell(path, new Random(one.seed()));
            CanonicalPath canonical = CanonicalPath.of(respelled);
            assertThat(canonical.problem()).as("%s respelled as %s", path, respelled).isNull();
            assertThat(canonical.matchPath()).as("%s respelled as %s", path, respelled)
                    .isEqualTo(CanonicalPath.of(path).matchPath());
        });
    }

    /** 0 to 5 segments of 1 to 6 unreserved characters, none a dot segment. */
    static String plainPath(Draws d) {
        return "/" + String.join("/", d.list(0, 5, CanonicalPathTest::plainSegment));
    }

    private static String plainSegment(Draws d) {
        String segment;
        do {
            segment = d.string("abcXYZ019-._~:@", 1, 6);
        } while (segment.equals(".") || segment.equals(".."));
        return segment;
    }

    /** 0 to 8 pieces a hostile client spells a path with: dot segments, escapes, parameters, bad escapes. */
    static String hostilePath(Draws d) {
        List<String> pieces = d.list(0, 8, p -> p.of("a", "B", "0", "-", ".", "..", "/", "//", "%2e", "%2E", "%2f",
                "%5c", "%41", "%6f", "%25", "%3b", ";", ";x=1", "%3A", ":", "@", "%C3%A9", "%c3", "%C0%AF", "%", "%0",
                "~", "*", "%20", "\"", "{"));
        return "/" + String.join("", pieces);
    }

    /** What a backend that decodes paths as common frameworks do reads: RFC 3986 §5.2.4 after decoding. */
    static final class Reference {

        /**
         * Decodes every escape but those of '/', '\', '%' and ';' (which change what the path says), drops segment
         * parameters, merges runs of '/', then removes dot segments with the RFC's own algorithm.
         */
        static String backendReads(String path) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int i = 0; i < path.length(); i++) {
                char c = path.charAt(i);
                if (c == '%' && i + 2 < path.length() && Character.digit(path.charAt(i + 1), 16) >= 0
                        && Character.digit(path.charAt(i + 2), 16) >= 0) {
                    int v = Integer.parseInt(path.substring(i + 1, i + 3), 16);
                    if (v == '/' || v == '\\' || v == '%' || v == ';') {
                        bytes.writeBytes(path.substring(i, i + 3).toUpperCase().getBytes(StandardCharsets.US_ASCII));
                    } else {
                        bytes.write(v);
                    }
                    i += 2;
                } else {
                    bytes.write(c);
                }
            }
            String decoded = bytes.toString(StandardCharsets.ISO_8859_1);
            StringBuilder noParams = new StringBuilder();
            for (String segment : decoded.split("/", -1)) {
                int semicolon = segment.indexOf(';');
                noParams.append('/').append(semicolon < 0 ? segment : segment.substring(0, semicolon));
            }
            String merged = noParams.substring(1).replaceAll("/{2,}", "/");
            return removeDotSegments(merged);
        }

        /** RFC 3986 §5.2.4, step by step. */
        static String removeDotSegments(String input) {
            StringBuilder in = new StringBuilder(input);
            StringBuilder out = new StringBuilder();
            while (in.length() > 0) {
                String s = in.toString();
                if (s.startsWith("../")) {
                    in.delete(0, 3);
                } else if (s.startsWith("./")) {
                    in.delete(0, 2);
                } else if (s.startsWith("/./")) {
                    in.delete(0, 2);
                } else if (s.equals("/.")) {
                    in.replace(0, 2, "/");
                } else if (s.startsWith("/../")) {
                    in.delete(0, 3);
                    removeLastSegment(out);
                } else if (s.equals("/..")) {
                    in.replace(0, 3, "/");
                    removeLastSegment(out);
                } else if (s.equals(".") || s.equals("..")) {
                    in.setLength(0);
                } else {
                    int next = s.indexOf('/', s.startsWith("/") ? 1 : 0);
                    int end = next < 0 ? s.length() : next;
                    out.append(s, 0, end);
                    in.delete(0, end);
                }
            }
            return out.toString();
        }

        private static void removeLastSegment(StringBuilder out) {
            int slash = out.lastIndexOf("/");
            out.setLength(Math.max(slash, 0));
        }

        /** Another spelling of {@code path} that a decoding backend reads as the same path. */
        static String respell(String path, Random random) {
            List<String> out = new ArrayList<>();
            for (String segment : path.substring(1).split("/", -1)) {
                if (random.nextInt(4) == 0) {
                    out.add(random.nextBoolean() ? "." : "%2e");
                }
                if (random.nextInt(4) == 0) {
                    out.add("x" + random.nextInt(9));
                    out.add(random.nextBoolean() ? ".." : "%2E%2e");
                }
                if (random.nextInt(4) == 0) {
                    out.add("");
                }
                StringBuilder spelled = new StringBuilder();
                for (char c : segment.toCharArray()) {
                    if (random.nextInt(3) == 0) {
                        String hex = String.format("%02x", (int) c);
                        spelled.append('%').append(random.nextBoolean() ? hex : hex.toUpperCase());
                    } else {
                        spelled.append(c);
                    }
                }
                if (random.nextInt(5) == 0 && !segment.isEmpty()) {
                    spelled.append(";v=").append(random.nextInt(9));
                }
                out.add(spelled.toString());
            }
            return "/" + String.join("/", out);
        }
    }
}
