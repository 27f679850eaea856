package io.tollgate.counter.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The property runner of the tests: as many cases as asked, a failure reported with its seed and shrunk to the
 * smallest case the simple shrink finds, and the seed replaying the case it names.
 */
class SeededTest {

    private static final Pattern SEED = Pattern.compile("-Dtollgate\\.seed=(-?\\d+)");
    private static final Pattern FIRST = Pattern.compile("case first found: (.*)");

    /** Lists of up to 20 numbers from 0 to 1000. */
    private static final Seeded.Generator<List<Long>> NUMBERS = d -> d.list(0, 20, n -> n.between(0L, 1000L));

    /** A replay of one case ({@code -Dtollgate.seed}) is not this test's run. */
    @BeforeEach
    void noReplay() {
        assumeTrue(System.getProperty(Seeded.SEED) == null, "replaying a case");
    }

    @Test
    void aPropertyThatHoldsIsCheckedOnEveryTry() {
        List<List<Long>> seen = new ArrayList<>();
        Seeded.forAll(300, NUMBERS, seen::add);

        assertThat(seen).hasSize(300);
        assertThat(seen).extracting(List::size).contains(0, 20);
    }

    @Test
    void aFailureNamesItsSeedAndTheSmallestCaseFound() {
        // fails on any list holding a number of 500 or more: the smallest such list is [500]
        AssertionError failure = catchThrowableOfType(AssertionError.class,
                () -> Seeded.forAll(1000, NUMBERS, list -> assertThat(list).allMatch(n -> n < 500)));

        assertThat(failure).hasMessageContaining("property failed on try ")
                .hasMessageContaining("replay: -Dtest=SeededTest#aFailureNamesItsSeedAndTheSmallestCaseFound")
                .hasMessageContaining("smallest case (")
                .hasMessageContaining("): [500]")
                .hasCauseInstanceOf(AssertionError.class);
        assertThat(SEED.matcher(failure.getMessage()).find()).isTrue();
    }

    @Test
    void theSeedReplaysTheCaseItNames() {
        AssertionError failure = catchThrowableOfType(AssertionError.class,
                () -> Seeded.forAll(1000, NUMBERS, list -> assertThat(list).hasSizeLessThan(15)));
        long seed = Long.parseLong(group(SEED, failure.getMessage()));
        String first = group(FIRST, failure.getMessage());

        List<List<Long>> replayed = new ArrayList<>();
        AssertionError again = catchThrowableOfType(AssertionError.class, () -> Seeded.replay(seed, NUMBERS, list -> {
            replayed.add(list);
            assertThat(list).hasSizeLessThan(15);
        }));

        assertThat(replayed.get(0)).hasToString(first);
        assertThat(group(FIRST, again.getMessage())).isEqualTo(first);
        assertThat(again).hasMessageContaining("the case of seed " + seed + ", replayed")
                .hasMessageContaining("): [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]");
    }

    @Test
    void aStringShrinksToItsShortestFailingSpellingOfTheFirstCharacters() {
        assertThatThrownBy(() -> Seeded.forAll(1000, d -> d.string("abc", 0, 8),
                text -> assertThat(text).doesNotContain("c"))).hasMessageContaining("): c" + System.lineSeparator());
        assertThatThrownBy(() -> Seeded.forAll(1000, d -> d.string("abc", 0, 8),
                text -> assertThat(text).hasSizeLessThan(3))).hasMessageContaining("): aaa" + System.lineSeparator());
    }

    @Test
    void anExceptionIsAFailureToo() {
        assertThatThrownBy(() -> Seeded.forAll(100, d -> d.between(0, 9), n -> {
            if (n >= 3) {
                throw new IllegalStateException("n was " + n);
            }
        })).hasMessageContaining("smallest case (").hasMessageContaining("): 3" + System.lineSeparator())
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    private static String group(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        assertThat(matcher.find()).as(text).isTrue();
        return matcher.group(1);
    }
}
