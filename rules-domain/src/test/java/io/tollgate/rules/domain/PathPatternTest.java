package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class PathPatternTest {

    @Test
    void doubleStarMatchesAnyRestIncludingNone() {
        PathPattern p = PathPattern.compile("/orders/**");

        assertThat(p.matches("/orders")).isTrue();
        assertThat(p.matches("/orders/")).isTrue();
        assertThat(p.matches("/orders/1")).isTrue();
        assertThat(p.matches("/orders/1/items/2")).isTrue();
        assertThat(p.matches("/order")).isFalse();
        assertThat(p.matches("/ordersx/1")).isFalse();
        assertThat(p.matches("/")).isFalse();
    }

    @Test
    void singleStarMatchesExactlyOneSegment() {
        PathPattern p = PathPattern.compile("/tenants/*/items");

        assertThat(p.matches("/tenants/t1/items")).isTrue();
        assertThat(p.matches("/tenants/items")).isFalse();
        assertThat(p.matches("/tenants/t1/t2/items")).isFalse();
        assertThat(p.matches("/tenants/t1/items/3")).isFalse();
    }

    @Test
    void literalsAreExactAndCaseSensitive() {
        PathPattern p = PathPattern.compile("/health");

        assertThat(p.matches("/health")).isTrue();
        assertThat(p.matches("//health/")).as("empty segments are ignored").isTrue();
        assertThat(p.matches("/Health")).isFalse();
        assertThat(p.matches("/health/x")).isFalse();
    }

    @Test
    void rootAndEverything() {
        assertThat(PathPattern.compile("/").matches("/")).isTrue();
        assertThat(PathPattern.compile("/").matches("/a")).isFalse();
        assertThat(PathPattern.compile("/**").matches("/")).isTrue();
        assertThat(PathPattern.compile("/**").matches("/a/b/c")).isTrue();
        assertThat(PathPattern.compile("/*/**").matches("/")).isFalse();
        assertThat(PathPattern.compile("/*/**").matches("/a")).isTrue();
    }

    @Test
    void rejectsBadGlobsWithAReason() {
        assertThat(PathPattern.problem("/orders/**")).isEmpty();
        assertThat(PathPattern.problem("/a/*/b/**")).isEmpty();
        assertThat(PathPattern.problem(null)).contains("must not be empty");
        assertThat(PathPattern.problem("orders")).contains("must start with '/'");
        assertThat(PathPattern.problem("/**/x")).contains("'**' may only be the last segment");
        assertThat(PathPattern.problem("/a//b")).isPresent();
        assertThat(PathPattern.problem("/a/")).isPresent();
        assertThat(PathPattern.problem("/a*")).isPresent();
        assertThat(PathPattern.problem("/a b")).isPresent();
        // a rule names paths as the gateway reads them: canonical, without segment parameters
        assertThat(PathPattern.problem("/%6Frders")).get().asString().contains("write it 'orders'");
        assertThat(PathPattern.problem("/caf%c3%a9")).get().asString().contains("write it 'caf%C3%A9'");
        assertThat(PathPattern.problem("/a/../b")).get().asString().contains("not canonical");
        assertThat(PathPattern.problem("/a%2Fb")).get().asString().contains("separates segments");
        assertThat(PathPattern.problem("/a;v=1")).get().asString().contains("';'");
        assertThat(PathPattern.problem("/caf%C3%A9/x:y")).isEmpty();
        assertThatThrownBy(() -> PathPattern.compile("/**/x")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The matcher walks the path in place; this holds it to the plain definition (split both into their
     * non-empty segments, compare) over generated globs and paths, slashes doubled and trailing included.
     */
    @Test
    void matchesLikeComparingSplitSegments() {
        Random random = new Random(42);
        String[] words = {"a", "b", "ab", "*"};
        for (int g = 0; g < 300; g++) {
            StringBuilder glob = new StringBuilder();
            int n = random.nextInt(4);
            for (int i = 0; i < n; i++) {
                glob.append('/').append(words[random.nextInt(words.length)]);
            }
            if (random.nextBoolean()) {
                glob.append("/**");
            }
            String text = glob.isEmpty() ? "/" : glob.toString();
            PathPattern pattern = PathPattern.compile(text);
            for (int q = 0; q < 50; q++) {
                StringBuilder path = new StringBuilder();
                int m = random.nextInt(6);
                for (int i = 0; i < m; i++) {
                    path.append(random.nextInt(4) == 0 ? "//" : "/").append(words[random.nextInt(3)]);
                }
                if (random.nextInt(4) == 0) {
                    path.append('/');
                }
                assertThat(pattern.matches(path.toString())).as("%s on %s", text, path)
                        .isEqualTo(bySplitting(text, path.toString()));
            }
        }
    }

    private static boolean bySplitting(String glob, String path) {
        List<String> want = segments(glob);
        List<String> given = segments(path);
        boolean rest = !want.isEmpty() && want.get(want.size() - 1).equals("**");
        if (rest) {
            want = want.subList(0, want.size() - 1);
        }
        if (given.size() < want.size() || (!rest && given.size() != want.size())) {
            return false;
        }
        for (int i = 0; i < want.size(); i++) {
            if (!want.get(i).equals("*") && !want.get(i).equals(given.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static List<String> segments(String path) {
        List<String> out = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                out.add(part);
            }
        }
        return out;
    }
}
