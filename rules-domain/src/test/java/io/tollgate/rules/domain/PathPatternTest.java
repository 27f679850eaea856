package io.tollgate.rules.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThatThrownBy(() -> PathPattern.compile("/**/x")).isInstanceOf(IllegalArgumentException.class);
    }
}
