package io.tollgate.gateway.settle;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;

/**
 * The whole number at a JSON pointer: in the body read as one JSON document, or, for a {@code text/event-stream}
 * answer, in the last event that has it. A body with a {@code Content-Encoding} other than {@code identity} is not
 * read: its bytes as relayed are compressed, so it has no usage.
 */
final class JsonMeter implements UsageMeter {

    /**
     * Each event-loop thread's array the chunks are copied into, a slice at a time, for the scan: a bulk copy, as
     * {@link Buffer} offers its bytes in place only through deprecated API.
     */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[8192]);

    private final JsonPointer pointer;
    /** What reads the body, chosen by the head; null while there is none to read. */
    private ByteScanner scanner;

    JsonMeter(JsonPointer pointer) {
        this.pointer = pointer;
    }

    @Override
    public void head(int status, MultiMap headers) {
        String encoding = headers.get(HttpHeaders.CONTENT_ENCODING);
        if (encoding != null && !encoding.isBlank() && !encoding.strip().equalsIgnoreCase("identity")) {
            scanner = null;
        } else if (isEventStream(headers.get(HttpHeaders.CONTENT_TYPE))) {
            scanner = new EventStreamScanner(new JsonScanner(pointer));
        } else {
            scanner = new JsonScanner(pointer);
        }
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
