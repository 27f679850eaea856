package io.tollgate.rules.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.tollgate.rules.store.ImportBatch;
import io.tollgate.rules.store.ImportSource;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * The lines of a bulk import as they arrive in the request body, a batch at a time: the request is read only
 * while a batch is wanted (paused otherwise), so the body is never held whole; each batch is read into entries
 * on a worker thread. The bounds (body size, line count, line length) are checked as the bytes come, and
 * crossing one fails the import with a 413. State is touched on the request's context only.
 */
final class NdjsonSource implements ImportSource {

    static final int BATCH_LINES = 5_000;
    static final int MAX_LINE_BYTES = 64 * 1024;

    private final HttpServerRequest request;
    private final Context context;
    private final ImportLines reader;
    private final long maxLines;
    private final long maxBytes;
    private List<ImportLines.Raw> batch = new ArrayList<>();
    private byte[] partial = new byte[0];
    private long lineNumber;
    private long entries;
    private long bytes;
    private boolean ended;
    private Throwable failure;
    private UniEmitter<? super List<ImportLines.Raw>> waiting;

    NdjsonSource(HttpServerRequest request, Context context, ImportLines reader, long maxLines, long maxBytes) {
        this.request = request;
        this.context = context;
        this.reader = reader;
        this.maxLines = maxLines;
        this.maxBytes = maxBytes;
        request.handler(this::received);
        request.endHandler(v -> ended());
        request.exceptionHandler(this::failed);
    }

    @Override
    public Uni<ImportBatch> next() {
        return Uni.createFrom().<List<ImportLines.Raw>>emitter(emitter -> context.runOnContext(v -> want(emitter)))
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .map(raw -> raw == null ? ImportBatch.END : reader.read(raw));
    }

    private void want(UniEmitter<? super List<ImportLines.Raw>> emitter) {
        waiting = emitter;
        if (!hand()) {
            request.resume();
        }
    }

    /** Hands a full batch, the last one, or the failure to the waiting reader, if any; true when it did. */
    private boolean hand() {
        if (waiting == null || (failure == null && !ended && batch.size() < BATCH_LINES)) {
            return false;
        }
        UniEmitter<? super List<ImportLines.Raw>> emitter = waiting;
        waiting = null;
        if (failure != null) {
            emitter.fail(failure);
        } else {
            List<ImportLines.Raw> full = batch;
            batch = new ArrayList<>();
            emitter.complete(full.isEmpty() && ended ? null : full);
        }
        return true;
    }

    private void received(Buffer buffer) {
        if (failure != null) {
            return;
        }
        bytes += buffer.length();
        if (bytes > maxBytes) {
            fail(ClientImportRoute.tooLarge("the body is larger than " + maxBytes + " bytes"));
            return;
        }
        byte[] chunk = buffer.getBytes();
        int start = 0;
        for (int i = 0; i < chunk.length; i++) {
            if (chunk[i] == '\n') {
                line(join(partial, chunk, start, i));
                partial = new byte[0];
                start = i + 1;
            }
        }
        partial = join(partial, chunk, start, chunk.length);
        if (partial.length > MAX_LINE_BYTES) {
            fail(ClientImportRoute.tooLarge("line " + (lineNumber + 1) + " is longer than " + MAX_LINE_BYTES + " bytes"));
            return;
        }
        if (batch.size() >= BATCH_LINES) {
            request.pause();
            hand();
        }
    }

    private void line(byte[] text) {
        lineNumber++;
        if (failure != null || isBlank(text)) {
            return;
        }
        if (text.length > MAX_LINE_BYTES) {
            fail(ClientImportRoute.tooLarge("line " + lineNumber + " is longer than " + MAX_LINE_BYTES + " bytes"));
        } else if (++entries > maxLines) {
            fail(ClientImportRoute.tooLarge("an import may have at most " + maxLines + " lines"));
        } else {
            batch.add(new ImportLines.Raw(lineNumber, text));
        }
    }

    private void ended() {
        if (partial.length > 0) {
            line(partial);
            partial = new byte[0];
        }
        ended = true;
        hand();
    }

    private void failed(Throwable cause) {
        fail(cause);
    }

    private void fail(Throwable cause) {
        if (failure == null) {
            failure = cause;
            request.pause();
            hand();
        }
    }

    private static byte[] join(byte[] head, byte[] chunk, int from, int to) {
        if (head.length == 0) {
            return Arrays.copyOfRange(chunk, from, to);
        }
        byte[] joined = Arrays.copyOf(head, head.length + to - from);
        System.arraycopy(chunk, from, joined, head.length, to - from);
        return joined;
    }

    private static boolean isBlank(byte[] text) {
        for (byte b : text) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}
