package io.tollgate.gateway.support;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * The {@link TestBackend}'s long answers that say what they used at their very end, as LLM APIs do, written with
 * back-pressure (a reader that stops reading holds the backend; nothing is made whole in memory): under
 * {@code /long/}, {@code sse/<v>/<n>} an event stream of n events of content, then one with
 * {@code usage.total_tokens} v, then {@code [DONE]}; {@code json/<v>/<n>} an LLM answer whose content is n bytes long,
 * followed by its usage v; {@code trickle/<v>/<n>} an event stream of n events, one every 100 ms, then the usage v: an
 * upstream that never falls silent, and is slow to its end; {@code late/<v>/<n>} a JSON answer with usage v, head and
 * all, after n ms.
 */
public final class LongAnswers {

    /** One event of content, as {@code sse/} sends it n times. */
    public static final String EVENT = "data: {\"choices\": [{\"delta\": {\"content\": \"token\"}}]}\n\n";

    private static final int EVENTS_PER_WRITE = 128;
    private static final int CONTENT_PER_WRITE = 64 * 1024;
    private static final long TRICKLE_MS = 100;

    private LongAnswers() {
    }

    static void answer(HttpServerResponse response, String how) {
        String[] parts = how.split("/", 3);
        String value = parts[1];
        long n = Long.parseLong(parts[2]);
        switch (parts[0]) {
            case "sse" -> write(response.putHeader("Content-Type", "text/event-stream"), events(value, n));
            case "json" -> write(response.putHeader("Content-Type", "application/json"), json(value, n));
            case "trickle" -> trickle(response.putHeader("Content-Type", "text/event-stream"), value, n);
            case "late" -> Vertx.currentContext().owner().setTimer(n, timer -> {
                if (!response.closed()) {
                    response.putHeader("Content-Type", "application/json").end(json(value));
                }
            });
            default -> response.setStatusCode(404).end();
        }
    }

    private static Iterator<Buffer> events(String value, long n) {
        Buffer batch = Buffer.buffer(EVENT.repeat(EVENTS_PER_WRITE));
        return pieces(Buffer.buffer(), batch, EVENT.length(), n * EVENT.length(),
                Buffer.buffer("data: {\"choices\": [], \"usage\": {\"total_tokens\": " + value + "}}\n\ndata: [DONE]\n\n"));
    }

    private static String json(String value) {
        return "{\"id\": \"cmpl-4\", \"choices\": [], \"usage\": {\"total_tokens\": " + value + "}}";
    }

    private static Iterator<Buffer> json(String value, long n) {
        byte[] content = new byte[CONTENT_PER_WRITE];
        java.util.Arrays.fill(content, (byte) 'x');
        return pieces(Buffer.buffer("{\"id\": \"cmpl-3\", \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\","
                + " \"content\": \""), Buffer.buffer(content), 1, n, Buffer.buffer(
                        ("\"}}], \"usage\": {\"prompt_tokens\":"
                                + " 3, \"completion_tokens\": 4, \"total_tokens\": " + value + "}}")
                                .getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * {@code head}, then {@code total} bytes cut from repeats of {@code body} (at a multiple of {@code unit}), then
     * {@code tail}.
     */
    private static Iterator<Buffer> pieces(Buffer head, Buffer body, int unit, long total, Buffer tail) {
        return new Iterator<>() {

            private long left = total;
            private boolean headSent;
            private boolean tailSent;

            @Override
            public boolean hasNext() {
                return !tailSent;
            }

            @Override
            public Buffer next() {
                if (!headSent) {
                    headSent = true;
                    return head;
                }
                if (left > 0) {
                    int n = (int) Math.min(left, body.length() / unit * unit);
                    left -= n;
                    return n == body.length() ? body : body.slice(0, n);
                }
                if (tailSent) {
                    throw new NoSuchElementException();
                }
                tailSent = true;
                return tail;
            }
        };
    }

    private static void trickle(HttpServerResponse response, String value, long n) {
        response.setChunked(true);
        Vertx vertx = Vertx.currentContext().owner();
        long[] sent = {0};
        vertx.setPeriodic(TRICKLE_MS, timer -> {
            if (response.closed()) {
                vertx.cancelTimer(timer);
            } else if (sent[0]++ < n) {
                response.write(EVENT);
            } else {
                vertx.cancelTimer(timer);
                response.end("data: {\"choices\": [], \"usage\": {\"total_tokens\": " + value + "}}\n\n");
            }
        });
    }

    /** Writes {@code pieces} as the reader takes them, then ends the answer. */
    private static void write(HttpServerResponse response, Iterator<Buffer> pieces) {
        response.setChunked(true);
        new Object() {

            void pump() {
                while (pieces.hasNext() && !response.writeQueueFull()) {
                    response.write(pieces.next());
                }
                if (pieces.hasNext()) {
                    response.drainHandler(v -> pump());
                } else {
                    response.end();
                }
            }
        }.pump();
    }
}
