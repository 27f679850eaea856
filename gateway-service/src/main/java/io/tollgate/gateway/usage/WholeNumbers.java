package io.tollgate.gateway.usage;

/** Reads a count of units as a backend writes it. */
final class WholeNumbers {

    private WholeNumbers() {
    }

    /**
     * What {@code text} says: {@link Usage.Used} when it is decimal digits only (leading zeros allowed) and fits a
     * long, else {@link Usage.Invalid}. A sign, a fraction or an exponent make it invalid, even {@code 1e3} or
     * {@code 2.0}: a backend that counts whole units writes them as such.
     */
    static Usage read(CharSequence text) {
        if (text.isEmpty()) {
            return new Usage.Invalid("", "empty");
        }
        long units = 0;
        for (int i = 0; i < text.length(); i++) {
            int digit = text.charAt(i) - '0';
            if (digit < 0 || digit > 9) {
                return new Usage.Invalid(text.toString(), "not a non-negative whole number");
            }
            if (units > (Long.MAX_VALUE - digit) / 10) {
                return new Usage.Invalid(text.toString(), "too large for a long");
            }
            units = units * 10 + digit;
        }
        return new Usage.Used(units);
    }
}
