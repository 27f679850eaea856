package io.tollgate.gateway.usage;

import java.nio.charset.StandardCharsets;

/**
 * Finds the value at a JSON pointer in the last event of a {@code text/event-stream} body that has it. A byte-level
 * state machine over the lines, keeping no line: the {@code data} of each event goes to a {@link JsonScanner} as its
 * own JSON document as it comes (lines joined by a newline), so {@code data: [DONE]} or any other data that is not
 * JSON has no usage, and the usage an LLM API sends in its final event before {@code [DONE]} counts.
 * <p>
 * As the SSE format says: lines end with {@code \n}, {@code \r\n} or {@code \r}; a field is its name up to a colon
 * and its value after it, less one space; a line without a colon is a field with an empty value; an empty line ends
 * an event; comments ({@code :}) and other fields play no part; an event the stream ends without its empty line is
 * discarded.
 */
final class EventStreamScanner implements ByteScanner {

    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEWLINE = {'\n'};

    // Where the scanner is in a line.
    private static final int LINE_START = 0;
    private static final int FIELD_NAME = 1;
    private static final int AFTER_COLON = 2;
    private static final int DATA_VALUE = 3;
    private static final int IGNORED = 4;

    private final JsonScanner event;
    private int state = LINE_START;
    /** In {@link #FIELD_NAME}: the bytes of the name so far, all of them the start of {@code data}. */
    private int nameLength;
    /** The last byte ended a line with {@code \r}: a {@code \n} now belongs to that line end. */
    private boolean afterCr;
    private boolean eventHasData;
    private Usage usage = Usage.ABSENT;

    EventStreamScanner(JsonScanner event) {
        this.event = event;
    }

    @Override
    public void feed(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to) {
            byte b = bytes[i];
            if (afterCr) {
                afterCr = false;
                if (b == '\n') {
                    i++;
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
                afterCr = b == '\r';
                lineEnd();
                i++;
            } else if (state == DATA_VALUE || state == IGNORED) {
                int end = endOfLine(bytes, i, to);
                if (state == DATA_VALUE) {
                    event.feed(bytes, i, end);
                }
                i = end;
            } else {
                lineByte(b, bytes, i);
                i++;
            }
        }
    }

    @Override
    public Usage end() {
        return usage;
    }

    private void lineByte(byte b, byte[] bytes, int at) {
        switch (state) {
            case LINE_START, FIELD_NAME -> {
                if (b == ':') {
                    // a comment when the name is empty; a field that plays no part unless it is data
                    state = nameLength == DATA.length ? startData() : IGNORED;
                } else if (nameLength < DATA.length && b == DATA[nameLength]) {
                    nameLength++;
                    state = FIELD_NAME;
                } else {
                    state = IGNORED;
                }
            }
            case AFTER_COLON -> {
                state = DATA_VALUE;
                if (b != ' ') {
                    event.feed(bytes, at, at + 1);
                }
            }
            default -> {
            }
        }
    }

    private int startData() {
        if (eventHasData) {
            event.feed(NEWLINE, 0, 1);
        }
        eventHasData = true;
        return AFTER_COLON;
    }

    private void lineEnd() {
        if (state == LINE_START) {
            dispatch();
        } else if (state == FIELD_NAME && nameLength == DATA.length) {
            startData(); // "data" alone: a data line with an empty value
        }
        state = LINE_START;
        nameLength = 0;
    }

    private void dispatch() {
        if (!eventHasData) {
            return;
        }
        Usage found = event.end();
        if (!(found instanceof Usage.Absent)) {
            usage = found;
        }
        event.reset();
        eventHasData = false;
    }

    private static int endOfLine(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && bytes[i] != '\n' && bytes[i] != '\r') {
            i++;
        }
        return i;
    }
}
