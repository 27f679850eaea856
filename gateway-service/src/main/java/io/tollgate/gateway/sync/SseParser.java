package io.tollgate.gateway.sync;

import java.nio.charset.StandardCharsets;

import io.vertx.core.buffer.Buffer;

/**
 * The part of the {@code text/event-stream} format a gateway needs: {@code data:} lines make an event, an
 * {@code event:} line names its type ({@code rules}, {@code directory}; {@code message} when none does), a
 * blank line ends it, comments ({@code : heartbeat}) and other fields are skipped. Chunks may split lines
 * anywhere; partial lines wait for the rest.
 */
final class SseParser {

    private final SseListener listener;
    private final StringBuilder pending = new StringBuilder();
    private static final String DEFAULT_TYPE = "message";

    private final StringBuilder data = new StringBuilder();
    private String type = DEFAULT_TYPE;
    private boolean inEvent;

    SseParser(SseListener listener) {
        this.listener = listener;
    }

    void feed(Buffer chunk) {
        pending.append(chunk.toString(StandardCharsets.UTF_8));
        int newline;
        while ((newline = pending.indexOf("\n")) >= 0) {
            String line = pending.substring(0, newline);
            pending.delete(0, newline + 1);
            line(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
        }
    }

    private void line(String line) {
        if (line.isEmpty()) {
            if (inEvent) {
                listener.event(type, data.toString());
            }
            data.setLength(0);
            type = DEFAULT_TYPE;
            inEvent = false;
        } else if (line.startsWith("event:")) {
            type = line.substring(6).strip();
        } else if (line.startsWith("data:")) {
            if (inEvent && data.length() > 0) {
                data.append('\n');
            }
            data.append(line.substring(5).stripLeading());
            inEvent = true;
        }
        // id:, event:, retry: and comments (heartbeats) alone make no event, as the SSE spec says
    }
}
