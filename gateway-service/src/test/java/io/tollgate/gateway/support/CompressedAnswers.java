package io.tollgate.gateway.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * The {@link TestBackend}'s compressed answers, under {@code /coded/<coding>/}, each telling in
 * {@code X-Seen-Accept-Encoding} what the request asked for: {@code json/<v>} an LLM answer with
 * {@code usage.total_tokens} v; {@code sse/<v>} an event stream with the usage in its last event but one, each event
 * flushed as it is written; {@code held/<n>} n events of a stream that then neither ends nor sends its usage;
 * {@code bomb/<mib>} a JSON answer of a string of mib MiB of zeros and then {@code usage.total_tokens} 5, about a
 * thousandth of that once compressed. {@code <coding>} is {@code gzip} or {@code deflate}; {@code br} sends the
 * answer uncompressed, labelled {@code br}: bytes no gateway can read as they are labelled.
 */
public final class CompressedAnswers {

    /** The SSE events of {@code sse/<v>} before its usage. */
    public static final int EVENTS = 20;

    private static final Map<Integer, byte[]> BOMBS = new ConcurrentHashMap<>();

    private CompressedAnswers() {
    }

    /** The uncompressed body of {@code json/<v>}. */
    public static String json(String value) {
        return """
                {"id": "cmpl-2", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": \
                "assistant", "content": "compressed, and still counted"}}], "usage": {"prompt_tokens": 12, \
                "completion_tokens": 30, "total_tokens": %s}}""".formatted(value);
    }

    /** The uncompressed body of {@code sse/<v>}. */
    public static String sse(String value) {
        StringBuilder stream = new StringBuilder();
        events(value).forEach(stream::append);
        return stream.toString();
    }

    /** {@code content} as {@code coding} compresses it, the same bytes each time (gzip's MTIME is 0). */
    public static byte[] encode(String coding, byte[] content) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (OutputStream out = compressor(coding, bytes)) {
            out.write(content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The body of {@code bomb/<mib>} as sent, gzip, made once per size. */
    public static byte[] bomb(int mib) {
        return BOMBS.computeIfAbsent(mib, size -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(bytes, 64 * 1024)) {
                out.write("{\"pad\": \"".getBytes(StandardCharsets.US_ASCII));
                byte[] zeros = new byte[1024 * 1024];
                java.util.Arrays.fill(zeros, (byte) '0');
                for (int i = 0; i < size; i++) {
                    out.write(zeros);
                }
                out.write("\", \"usage\": {\"total_tokens\": 5}}".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        });
    }

    static void answer(HttpServerRequest request, String how) {
        String[] parts = how.split("/", 3);
        String coding = parts[0];
        String kind = parts[1];
        String value = parts[2];
        HttpServerResponse response = request.response()
                .putHeader("X-Seen-Accept-Encoding", String.valueOf(request.getHeader("Accept-Encoding")))
                .putHeader("Content-Encoding", coding);
        switch (kind) {
            case "json" -> response.putHeader("Content-Type", "application/json")
                    .end(Buffer.buffer(body(coding, json(value).getBytes(StandardCharsets.UTF_8))));
            case "sse" -> stream(response.setChunked(true), coding, events(value), true);
            case "held" -> stream(response.setChunked(true), coding,
                    events("0").subList(0, Integer.parseInt(value)), false);
            case "bomb" -> response.putHeader("Content-Type", "application/json")
                    .end(Buffer.buffer(bomb(Integer.parseInt(value))));
            default -> response.setStatusCode(404).end();
        }
    }

    private static byte[] body(String coding, byte[] content) {
        return coding.equals("br") ? content : encode(coding, content);
    }

    private static List<String> events(String value) {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add("data: {\"choices\": [{\"delta\": {\"content\": \"token " + i + "\"}}]}\n\n");
        }
        events.add("data: {\"choices\": [], \"usage\": {\"total_tokens\": " + value + "}}\n\n");
        events.add("data: [DONE]\n\n");
        return events;
    }

    /** Writes each event compressed and flushed, a chunk of its own; ends the stream when {@code end}. */
    private static void stream(HttpServerResponse response, String coding, List<String> events, boolean end) {
        response.putHeader("Content-Type", "text/event-stream");
        ByteArrayOutputStream chunk = new ByteArrayOutputStream();
        try {
            OutputStream out = compressor(coding, chunk);
            for (String event : events) {
                out.write(event.getBytes(StandardCharsets.UTF_8));
                out.flush();
                response.write(Buffer.buffer(chunk.toByteArray()));
                chunk.reset();
            }
            if (end) {
                out.close();
                response.end(Buffer.buffer(chunk.toByteArray()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static OutputStream compressor(String coding, OutputStream bytes) throws IOException {
        return switch (coding) {
            case "gzip" -> new GZIPOutputStream(bytes, true);
            case "deflate" -> new DeflaterOutputStream(bytes, new Deflater(), true);
            default -> throw new IllegalArgumentException("no coding " + coding);
        };
    }
}
