package io.tollgate.gateway.usage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Finds the value at a JSON pointer in one JSON document that arrives in pieces split anywhere. A byte-level state
 * machine: it tracks where the current value sits only as far as that matches the pointer, compares keys with the
 * pointer byte by byte as they come (JSON escapes decoded, UTF-8 as sent), skips everything else without keeping it
 * and keeps at most {@value Capture#MAX_BYTES} bytes of the value at the pointer. What it holds is the pointer, a
 * bit per open container and those bytes, whatever the document's size. Jackson's non-blocking parser would do the
 * tokenising, but it holds each string token whole, so a body with one long string would sit in memory.
 * <p>
 * The document is checked as it goes (RFC 8259 grammar, nesting up to {@value #MAX_DEPTH} deep as Jackson allows;
 * string bytes are not checked as UTF-8). A value counts once its last byte is read (for a number, the byte after
 * it, or the end of a document that is that number). Duplicate keys: the last wins, as in a parser that builds the
 * document, so a later value on the pointer's path replaces whatever was found in an earlier one. A document that
 * turns out not to be JSON ends the reading: what was found before the bad byte stands (a body that breaks off
 * after {@code "n": 5,} has 5), so a body that is not JSON at all has no usage, nor one that ends right after the
 * value's last digit inside an object.
 */
final class JsonScanner implements ByteScanner {

    static final int MAX_DEPTH = 1000;

    /** The on-path array's element at the pointer's index has been read: no later element matches. */
    private static final long PASSED = Long.MIN_VALUE;

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

    // Where the scanner is. A value: at the start, after ':' and after ',' in an array.
    private static final int VALUE = 0;
    private static final int FIRST_ELEMENT = 1;
    private static final int FIRST_KEY = 2;
    private static final int KEY = 3;
    private static final int COLON = 4;
    private static final int AFTER_VALUE = 5;
    private static final int DONE = 6;
    private static final int FAILED = 7;
    private static final int STRING = 8;
    private static final int ESCAPE = 9;
    private static final int HEX = 10;
    private static final int LITERAL = 11;
    // In a number, by the RFC 8259 grammar; every state from MINUS on is one.
    private static final int MINUS = 12;
    private static final int ZERO = 13;
    private static final int INTEGER = 14;
    private static final int POINT = 15;
    private static final int FRACTION = 16;
    private static final int EXPONENT = 17;
    private static final int EXPONENT_SIGN = 18;
    private static final int EXPONENT_DIGITS = 19;
    /** What {@link #number} finds when a byte follows a whole number: not a state. */
    private static final int ENDED = -1;

    private final JsonPointer pointer;
    private final Capture capture = new Capture();

    private int state;
    /** Containers open; the bit of depth {@code d} at {@code d - 1} is set for an object, clear for an array. */
    private int depth;
    private long[] objects = new long[1];
    /** The open containers at depths 1 to this one lie on the pointer's path; none deeper does. */
    private int pathDepth;
    /** In the array at {@link #pathDepth}: the index of the current element. */
    private long index;

    private boolean inKey;
    /** The string being read is tracked: a key compared with the pointer, or part of the captured value. */
    private boolean tracked;
    private final KeyMatcher keyMatch = new KeyMatcher();
    /** The value after the key just read is on the pointer's path. */
    private boolean memberOnPath;

    private int hexDigits;
    private int codeUnit;
    private byte[] literal;
    private int literalMatched;

    private boolean capturing;
    private int captureDepth;
    private Usage usage = Usage.ABSENT;

    JsonScanner(JsonPointer pointer) {
        this.pointer = pointer;
    }

    /** Ready for another document, keeping what it allocated. */
    void reset() {
        state = VALUE;
        depth = 0;
        pathDepth = 0;
        inKey = false;
        capturing = false;
        usage = Usage.ABSENT;
    }

    @Override
    public void feed(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            // the bytes that change nothing run in tight loops: most of a large body is in strings nobody reads
            if (!capturing) {
                int s = state;
                if (s == STRING) {
                    // a key on the path is compared with its segment in a loop of its own, the rest skipped
                    i = !tracked ? skipString(bytes, i, to) : inKey ? keyMatch.plain(bytes, i, to) : i;
                } else if (s == INTEGER || s == FRACTION || s == EXPONENT_DIGITS) {
                    i = skipDigits(bytes, i, to);
                } else if (s <= AFTER_VALUE || s == DONE) {
                    i = skipWhitespace(bytes, i, to);
                } else if (s == FAILED) {
                    return;
                }
                if (i == to) {
                    return;
                }
            }
            step(bytes[i++]);
        }
    }

    /** To the first byte of the string that is not plain text or a one-letter escape within these bytes. */
    private static int skipString(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            byte b = bytes[i];
            if (b == '\\' && i + 1 < to && shortEscape(bytes[i + 1])) {
                i += 2;
            } else if (b == '"' || b == '\\' || b >= 0 && b < 0x20) {
                return i;
            } else {
                i++;
            }
        }
        return i;
    }

    private static boolean shortEscape(byte b) {
        return b == '"' || b == '\\' || b == '/' || b == 'n' || b == 't' || b == 'r' || b == 'b' || b == 'f';
    }

    private static int skipDigits(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && bytes[i] >= '0' && bytes[i] <= '9') {
            i++;
        }
        return i;
    }

    private static int skipWhitespace(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && whitespace(bytes[i])) {
            i++;
        }
        return i;
    }

    @Override
    public Usage end() {
        if (depth == 0 && (state == ZERO || state == INTEGER || state == FRACTION || state == EXPONENT_DIGITS)) {
            endValue(); // the document is a number, ended by the end of the body
        }
        return usage;
    }

    private void step(byte b) {
        if (state >= MINUS) {
            if (number(b)) {
                if (capturing) {
                    capture.add(b);
                }
                return;
            }
            if (state == FAILED) {
                return;
            }
            endValue(); // b follows the number
        }
        if (capturing) {
            capture.add(b);
        }
        switch (state) {
            case VALUE -> value(b);
            case FIRST_ELEMENT -> {
                if (b == ']') {
                    close(b);
                } else {
                    value(b);
                }
            }
            case FIRST_KEY -> {
                if (b == '}') {
                    close(b);
                } else {
                    beforeKey(b);
                }
            }
            case KEY -> beforeKey(b);
            case COLON -> {
                if (b == ':') {
                    state = VALUE;
                } else if (!whitespace(b)) {
                    fail();
                }
            }
            case AFTER_VALUE -> afterValue(b);
            case DONE -> {
                if (!whitespace(b)) {
                    fail();
                }
            }
            case STRING -> string(b);
            case ESCAPE -> escape(b);
            case HEX -> hex(b);
            case LITERAL -> literal(b);
            default -> {
            }
        }
    }

    private void value(byte b) {
        if (whitespace(b)) {
            return;
        }
        boolean onPath = depth == 0 || depth == pathDepth
                && (isObject(depth) ? memberOnPath : index == pointer.indices()[depth - 1]);
        if (onPath) {
            usage = Usage.ABSENT; // a later value here replaces the earlier one and all that was found in it
        }
        boolean target = onPath && depth == pointer.segments().length;
        if (target && b != '{' && b != '[') {
            startCapture(b);
        }
        switch (b) {
            case '{', '[' -> open(b, onPath, target);
            case '"' -> {
                inKey = false;
                tracked = capturing;
                state = STRING;
            }
            case 't' -> startLiteral(TRUE);
            case 'f' -> startLiteral(FALSE);
            case 'n' -> startLiteral(NULL);
            case '-' -> state = MINUS;
            case '0' -> state = ZERO;
            case '1', '2', '3', '4', '5', '6', '7', '8', '9' -> state = INTEGER;
            default -> fail();
        }
    }

    private void open(byte b, boolean onPath, boolean target) {
        if (depth == MAX_DEPTH) {
            fail();
            return;
        }
        if (target) {
            startCapture(b);
        }
        depth++;
        int word = (depth - 1) >> 6;
        if (word == objects.length) {
            objects = Arrays.copyOf(objects, word + 1);
        }
        if (b == '{') {
            objects[word] |= 1L << (depth - 1);
            state = FIRST_KEY;
        } else {
            objects[word] &= ~(1L << (depth - 1));
            state = FIRST_ELEMENT;
        }
        if (onPath && !target) {
            pathDepth = depth;
            index = 0;
        }
    }

    private void close(byte b) {
        if (isObject(depth) != (b == '}')) {
            fail();
            return;
        }
        if (depth == pathDepth) {
            pathDepth--;
            index = PASSED;
        }
        depth--;
        endValue();
    }

    private void afterValue(byte b) {
        if (b == ',') {
            if (isObject(depth)) {
                state = KEY;
            } else {
                if (depth == pathDepth && index >= 0) {
                    index++;
                }
                state = VALUE;
            }
        } else if (b == '}' || b == ']') {
            close(b);
        } else if (!whitespace(b)) {
            fail();
        }
    }

    private void beforeKey(byte b) {
        if (b == '"') {
            inKey = true;
            tracked = capturing || depth == pathDepth;
            keyMatch.start(depth == pathDepth ? pointer.segments()[depth - 1] : null);
            memberOnPath = false;
            state = STRING;
        } else if (!whitespace(b)) {
            fail();
        }
    }

    private void string(byte b) {
        if (b == '"') {
            if (inKey) {
                memberOnPath = keyMatch.matches();
                inKey = false;
                state = COLON;
            } else {
                endValue();
            }
        } else if (b == '\\') {
            state = ESCAPE;
        } else if (b >= 0 && b < 0x20) {
            fail(); // a control character must be escaped
        } else if (inKey) {
            keyMatch.utf8(b);
        }
    }

    private void escape(byte b) {
        int decoded = switch (b) {
            case '"', '\\', '/' -> b;
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> -1;
            default -> -2;
        };
        if (decoded == -2) {
            fail();
        } else if (decoded == -1) {
            hexDigits = 0;
            codeUnit = 0;
            state = HEX;
        } else {
            state = STRING;
            if (inKey) {
                keyMatch.utf8(decoded);
            }
        }
    }

    private void hex(byte b) {
        int digit = Character.digit(b, 16);
        if (digit < 0) {
            fail();
            return;
        }
        codeUnit = codeUnit << 4 | digit;
        if (++hexDigits == 4) {
            state = STRING;
            if (inKey) {
                keyMatch.escaped((char) codeUnit);
            }
        }
    }

    private void startLiteral(byte[] expected) {
        literal = expected;
        literalMatched = 1;
        state = LITERAL;
    }

    private void literal(byte b) {
        if (b != literal[literalMatched]) {
            fail();
        } else if (++literalMatched == literal.length) {
            endValue();
        }
    }

    /** Whether {@code b} continues the number; when it does not, the number ended before it, or failed. */
    private boolean number(byte b) {
        boolean digit = b >= '0' && b <= '9';
        boolean exponent = b == 'e' || b == 'E';
        int next = switch (state) {
            case MINUS -> b == '0' ? ZERO : digit ? INTEGER : FAILED;
            case ZERO -> b == '.' ? POINT : exponent ? EXPONENT : ENDED;
            case INTEGER -> digit ? INTEGER : b == '.' ? POINT : exponent ? EXPONENT : ENDED;
            case POINT -> digit ? FRACTION : FAILED;
            case FRACTION -> digit ? FRACTION : exponent ? EXPONENT : ENDED;
            case EXPONENT -> b == '+' || b == '-' ? EXPONENT_SIGN : digit ? EXPONENT_DIGITS : FAILED;
            case EXPONENT_SIGN -> digit ? EXPONENT_DIGITS : FAILED;
            default -> digit ? EXPONENT_DIGITS : ENDED;
        };
        if (next == FAILED) {
            fail();
        } else if (next != ENDED) {
            state = next;
        }
        return next != FAILED && next != ENDED;
    }

    private void startCapture(byte first) {
        capturing = true;
        captureDepth = depth;
        capture.start(first);
    }

    /** A value ended: the document's own, or one inside the container now open. */
    private void endValue() {
        if (capturing && depth == captureDepth) {
            capturing = false;
            usage = capture.usage();
        }
        state = depth == 0 ? DONE : AFTER_VALUE;
    }

    private boolean isObject(int atDepth) {
        return (objects[(atDepth - 1) >> 6] & 1L << (atDepth - 1)) != 0;
    }

    private void fail() {
        state = FAILED;
        capturing = false;
    }

    private static boolean whitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }
}
