package io.tollgate.counter.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Where a generator of {@link Seeded} takes its values from: every choice is a whole number in a range, recorded
 * as its distance from the range's low end. Drawn from a seeded random source, or replayed from recorded choices
 * (a choice past the range's end is read as its end; past the last choice, every choice is 0), so that a case is
 * its list of choices, and a case with fewer or lower choices is a simpler one: a list without an element, a
 * smaller number, the first of the options.
 */
public final class Draws {

    /** Null when replaying. */
    private final SplittableRandom random;
    private final long[] replayed;
    private int next;
    private long[] choices = new long[16];
    private int count;

    private Draws(SplittableRandom random, long[] replayed) {
        this.random = random;
        this.replayed = replayed;
    }

    /** Choices drawn at random from {@code seed}: one seed, one case. */
    static Draws random(long seed) {
        return new Draws(new SplittableRandom(seed), null);
    }

    /** The case these choices make. */
    static Draws replay(long[] choices) {
        return new Draws(null, choices.clone());
    }

    /** The choices made so far, in order. */
    long[] choices() {
        return Arrays.copyOf(choices, count);
    }

    /** A whole number from {@code min} to {@code max}, both included, uniformly; it shrinks toward {@code min}. */
    public long between(long min, long max) {
        if (max < min) {
            throw new IllegalArgumentException("empty range " + min + ".." + max);
        }
        long range = Math.subtractExact(max, min);
        long choice;
        if (random == null) {
            choice = next < replayed.length ? Math.min(replayed[next], range) : 0;
            next++;
        } else {
            choice = range == Long.MAX_VALUE ? random.nextLong() >>> 1 : random.nextLong(range + 1);
        }
        record(choice);
        return min + choice;
    }

    /** A whole number from {@code min} to {@code max}, both included; it shrinks toward {@code min}. */
    public int between(int min, int max) {
        return (int) between((long) min, (long) max);
    }

    /** One of {@code options}, each as likely; it shrinks toward the first. */
    @SafeVarargs
    public final <T> T of(T... options) {
        return options[between(0, options.length - 1)];
    }

    /** One of {@code options}, each as likely; it shrinks toward the first. */
    public <T> T of(List<T> options) {
        return options.get(between(0, options.size() - 1));
    }

    /** One of the constants of {@code type}, each as likely; it shrinks toward the first declared. */
    public <E extends Enum<E>> E of(Class<E> type) {
        return of(type.getEnumConstants());
    }

    /**
     * An index of {@code weights}, index i as likely as {@code weights[i]} against their sum; it shrinks toward 0,
     * so the simplest option goes first.
     */
    public int weighted(int... weights) {
        int total = Arrays.stream(weights).sum();
        long drawn = between(0, total - 1);
        for (int i = 0; i < weights.length; i++) {
            drawn -= weights[i];
            if (drawn < 0) {
                return i;
            }
        }
        throw new IllegalStateException("weights must be positive: " + Arrays.toString(weights));
    }

    /**
     * From {@code min} to {@code max} elements of {@code element}, each size as likely. Before each element past
     * the first {@code min}, a choice of 0 or 1 says whether it comes, so that an element shrinks away with its
     * own choices and a 0 ends the list there.
     */
    public <T> List<T> list(int min, int max, Seeded.Generator<T> element) {
        // drawing, the size is picked first; replaying, the recorded choices decide
        int size = random == null ? -1 : min + random.nextInt(max - min + 1);
        List<T> list = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            if (i >= min && !another(i < size)) {
                break;
            }
            list.add(element.next(this));
        }
        return list;
    }

    /** A string of {@code min} to {@code max} characters of {@code alphabet}; it shrinks toward its first. */
    public String string(String alphabet, int min, int max) {
        StringBuilder text = new StringBuilder();
        for (char c : list(min, max, d -> alphabet.charAt(d.between(0, alphabet.length() - 1)))) {
            text.append(c);
        }
        return text.toString();
    }

    /** Whether a list takes another element: {@code wanted} when drawing, the recorded choice when replaying. */
    private boolean another(boolean wanted) {
        if (random == null) {
            return between(0L, 1L) == 1;
        }
        record(wanted ? 1 : 0);
        return wanted;
    }

    private void record(long choice) {
        if (count == choices.length) {
            choices = Arrays.copyOf(choices, count * 2);
        }
        choices[count++] = choice;
    }
}
