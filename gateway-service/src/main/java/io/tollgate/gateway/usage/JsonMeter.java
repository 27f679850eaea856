package io.tollgate.gateway.usage;

import java.util.List;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;

/**
 * The whole number at a JSON pointer: in the body read as one JSON document, or, for a {@code text/event-stream}
 * answer, in the last event that has it. A compressed body ({@code gzip}, {@code deflate}) is read as it is
 * decompressed, up to a bound; one in another coding has no usage ({@link ContentCodings}).
 */
final class JsonMeter implements UsageMeter {

    /**
     * Each event-loop thread's array the chunks are copied into, a slice at a time, for the scan: a bulk copy, as
     * {@link Buffer} offers its bytes in place only through deprecated API.
     */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[8192]);

    private final JsonPointer pointer;
    private final long maxDecodedBytes;
    /** What reads the body, chosen by the head; null while there is none to read. */
    private ByteScanner scanner;

    JsonMeter(JsonPointer pointer, long maxDecodedBytes) {
        this.pointer = pointer;
        this.maxDecodedBytes = maxDecodedBytes;
    }

    @Override
    public void request(MultiMap headers) {
        ContentCodings.narrow(headers);
    }

    @Override
    public void head(int status, MultiMap headers) {
        ByteScanner content = isEventStream(headers.get(HttpHeaders.CONTENT_TYPE))
                ? new EventStreamScanner(new JsonScanner(pointer))
                : new JsonScanner(pointer);
        List<String> encodings = headers.getAll(HttpHeaders.CONTENT_ENCODING);
        scanner = ContentCodings.reader(encodings.isEmpty() ? null : String.join(",", encodings), content,
                maxDecodedBytes);
    }

    @Override
    public void body(Buffer chunk) {
        if (scanner == null) {
            return;
        }
        byte[] scratch = SCRATCH.get();
        for (int at = 0; at < chunk.length(); at += scratch.length) {
            int end = Math.min(chunk.length(), at + scratch.length);
            chunk.getBytes(at, end, scratch, 0);
            scanner.feed(scratch, 0, end - at);
        }
    }

    @Override
    public Usage end() {
        return scanner == null ? Usage.ABSENT : scanner.end();
    }

    /** The last event of a stream may not have come yet: a stream cut short has no usage. */
    @Override
    public Usage cut() {
        if (scanner != null) {
            scanner.close();
        }
        return Usage.ABSENT;
    }

    /** Whether the media type, parameters aside, is {@code text/event-stream}, in any case. */
    static boolean isEventStream(String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String mediaType = parameters < 0 ? contentType : contentType.substring(0, parameters);
        return mediaType.strip().equalsIgnoreCase("text/event-stream");
    }
}
