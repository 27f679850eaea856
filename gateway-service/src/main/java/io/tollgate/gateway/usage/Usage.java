package io.tollgate.gateway.usage;

/** What an answer said it used. */
public sealed interface Usage {

    /** The answer said nothing: the header is missing, the pointer leads nowhere, the body is not JSON. */
    Usage ABSENT = new Absent();

    /** The answer said nothing it used. */
    record Absent() implements Usage {
    }

    /**
     * The answer used {@code units}.
     *
     * @param units
     * a non-negative whole number
     */
    record Used(long units) implements Usage {

        public Used {
            if (units < 0) {
                throw new IllegalArgumentException("units must not be negative: " + units);
            }
        }
    }

    /**
     * The answer said something, but not a non-negative whole number that fits a long.
     *
     * @param value
     * what it said, as text cut to {@value #MAX_VALUE_CHARS} characters (a JSON value in its JSON form)
     * @param why
     * what is wrong with it, for a log line
     */
    record Invalid(String value, String why) implements Usage {

        /** The longest {@link #value} kept: enough to recognise it in a log line. */
        public static final int MAX_VALUE_CHARS = 64;

        public Invalid {
            if (value.length() > MAX_VALUE_CHARS) {
                value = value.substring(0, MAX_VALUE_CHARS);
            }
        }
    }
}
