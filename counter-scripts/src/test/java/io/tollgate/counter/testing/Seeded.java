package io.tollgate.counter.testing;

import java.util.SplittableRandom;

import org.junit.jupiter.api.function.ThrowingConsumer;
import org.opentest4j.TestAbortedException;

/**
 * Properties on plain JUnit 5: {@link #forAll} checks a property against {@code tries} cases of a generator, each
 * drawn from a seed of its own ({@link Draws}). When a case fails, a simple shrink looks for a smaller one that
 * still fails (it deletes blocks of the case's choices and lowers each toward 0, keeping any change after which
 * the property still fails, until none helps), and the test fails with the try's seed, the smallest case found
 * and its failure. {@code -Dtollgate.seed=<seed>} (passed on by Maven to the tests) replays that one case, and the
 * same shrink, in place of the tries; {@link #replay} pins a case in a test.
 * <p>
 * A generator is a function of the {@link Draws}; what it returns is shown as the case, so a record reads best.
 */
public final class Seeded {

    /** The system property that replays one case: the seed a failure printed. */
    public static final String SEED = "tollgate.seed";
    /** The most property runs one shrink takes: a slow property's failure is reported in bounded time. */
    static final int MAX_SHRINK_RUNS = 2_000;

    /** Makes one case from the choices it draws. */
    @FunctionalInterface
    public interface Generator<T> {

        T next(Draws draws);
    }

    private Seeded() {
    }

    /**
     * Checks {@code property} against {@code tries} cases of {@code generator}, each of a random seed; or, with
     * {@code -Dtollgate.seed=<seed>}, against that seed's case only.
     *
     * @throws AssertionError
     * naming the failing case's seed and the smallest failing case the shrink found, caused by its failure
     */
    public static <T> void forAll(int tries, Generator<T> generator, ThrowingConsumer<T> property) {
        String replayed = System.getProperty(SEED, "").strip();
        if (!replayed.isEmpty()) {
            replay(Long.parseLong(replayed), generator, property);
            return;
        }
        SplittableRandom seeds = new SplittableRandom();
        for (int i = 1; i <= tries; i++) {
            check(seeds.nextLong(), "try " + i + " of " + tries, generator, property);
        }
    }

    /** Checks {@code property} against the case {@code seed} makes, as a failure of {@link #forAll} printed it. */
    public static <T> void replay(long seed, Generator<T> generator, ThrowingConsumer<T> property) {
        check(seed, "the case of seed " + seed + ", replayed", generator, property);
    }

    private static <T> void check(long seed, String which, Generator<T> generator, ThrowingConsumer<T> property) {
        Draws draws = Draws.random(seed);
        T found = generator.next(draws);
        Throwable failure = failure(property, found);
        if (failure == null) {
            return;
        }
        Shrink<T> shrink = new Shrink<>(generator, property, draws.choices(), found, failure);
        shrink.run();
        String nl = System.lineSeparator();
        throw new AssertionError("property failed on " + which + ", seed " + seed + nl
                + "  replay: " + testName() + "-D" + SEED + "=" + seed + nl
                + "  case first found: " + found + nl
                + "  smallest case (" + shrink.shrinks + " shrinks in " + shrink.runs + " runs): " + shrink.value + nl
                + "  its failure: " + shrink.failure, shrink.failure);
    }

    /** How the property failed on {@code value}; null when it held (or was aborted by an assumption). */
    private static <T> Throwable failure(ThrowingConsumer<T> property, T value) {
        try {
            property.accept(value);
            return null;
        } catch (TestAbortedException e) {
            return null;
        } catch (AssertionError | Exception e) {
            return e;
        } catch (Throwable e) {
            // an OutOfMemoryError, a StackOverflowError...: no case to shrink
            throw new AssertionError("property failed on an error", e);
        }
    }

    /**
     * {@code -Dtest=Class#method } of the test that called {@link #forAll} (from a lambda, the method around it), or
     * nothing when not found.
     */
    private static String testName() {
        return StackWalker.getInstance()
                .walk(frames -> frames.filter(f -> !f.getClassName().equals(Seeded.class.getName())).findFirst())
                .map(f -> {
                    String method = f.getMethodName();
                    if (method.startsWith("lambda$") && method.lastIndexOf('$') > "lambda$".length()) {
                        method = method.substring("lambda$".length(), method.lastIndexOf('$'));
                    }
                    String type = f.getClassName().substring(f.getClassName().lastIndexOf('.') + 1);
                    return "-Dtest=" + type + "#" + method + " ";
                })
                .orElse("");
    }

    /** The smallest failing case found so far: its choices, its value and how the property failed on it. */
    private static final class Shrink<T> {

        private final Generator<T> generator;
        private final ThrowingConsumer<T> property;
        long[] choices;
        T value;
        Throwable failure;
        int shrinks;
        int runs;

        Shrink(Generator<T> generator, ThrowingConsumer<T> property, long[] choices, T value, Throwable failure) {
            this.generator = generator;
            this.property = property;
            this.choices = choices;
            this.value = value;
            this.failure = failure;
        }

        /** Deletes blocks of choices, then lowers each, and again, until a round makes no case smaller. */
        void run() {
            boolean smaller = true;
            while (smaller && runs < MAX_SHRINK_RUNS) {
                smaller = deleteBlocks();
                smaller |= lowerEach();
            }
        }

        /** Deletes 8, 4, 2, then 1 choices at each place: an element of a list goes with its own choices. */
        private boolean deleteBlocks() {
            boolean smaller = false;
            for (int size = 8; size >= 1; size /= 2) {
                int at = 0;
                while (at + size <= choices.length && runs < MAX_SHRINK_RUNS) {
                    long[] candidate = new long[choices.length - size];
                    System.arraycopy(choices, 0, candidate, 0, at);
                    System.arraycopy(choices, at + size, candidate, at, choices.length - at - size);
                    if (keepIfFailing(candidate)) {
                        smaller = true;
                    } else {
                        at++;
                    }
                }
            }
            return smaller;
        }

        /** Lowers each choice to 0, else to the lowest value a halving search finds that still fails. */
        private boolean lowerEach() {
            boolean smaller = false;
            for (int i = 0; i < choices.length && runs < MAX_SHRINK_RUNS; i++) {
                if (choices[i] == 0) {
                    continue;
                }
                if (keepIfFailing(lowered(i, 0))) {
                    smaller = true;
                    continue;
                }
                long passes = 0;
                long fails = choices[i];
                while (fails - passes > 1 && runs < MAX_SHRINK_RUNS) {
                    long tried = passes + (fails - passes) / 2;
                    if (keepIfFailing(lowered(i, tried))) {
                        smaller = true;
                        fails = tried;
                    } else {
                        passes = tried;
                    }
                }
            }
            return smaller;
        }

        /** The choices with choice {@code i} set to {@code value}. */
        private long[] lowered(int i, long value) {
            long[] candidate = choices.clone();
            candidate[i] = value;
            return candidate;
        }

        /** Replays {@code candidate}; keeps the case it makes when the property fails on it and it is smaller. */
        private boolean keepIfFailing(long[] candidate) {
            runs++;
            Draws draws = Draws.replay(candidate);
            T made;
            try {
                made = generator.next(draws);
            } catch (RuntimeException e) {
                return false;
            }
            long[] used = draws.choices();
            if (!simpler(used, choices)) {
                return false;
            }
            Throwable failed = failure(property, made);
            if (failed == null) {
                return false;
            }
            choices = used;
            value = made;
            failure = failed;
            shrinks++;
            return true;
        }

        /** Fewer choices, or as many and the first that differs lower: each kept change makes progress. */
        private static boolean simpler(long[] a, long[] b) {
            if (a.length != b.length) {
                return a.length < b.length;
            }
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    return a[i] < b[i];
                }
            }
            return false;
        }
    }
}
