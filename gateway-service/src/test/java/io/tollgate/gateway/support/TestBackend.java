package io.tollgate.gateway.support;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import org.jboss.logging.Logger;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A real HTTP backend on a free port that counts its hits and answers with what it received (method, uri,
 * headers, body length and CRC-32, computed while streaming: nothing is held whole). Control paths under
 * {@code /__} are not counted: {@code /__hits} (with the broken exchanges below), {@code /__reset}.
 * {@code /download/<n>} streams n bytes; {@code /slow} never answers; {@code /break/<n>} sends n bytes of
 * an answer it declares longer ({@code ?length=<m>}: as Content-Length m, else chunked), then cuts the connection;
 * {@code /stall/<n>} sends n bytes of a chunked answer, then nothing more, and keeps the connection open.
 * Counted for the tests of broken streams: uploads whose first bytes arrived ({@code uploadsStarted}),
 * uploads that broke off before their end ({@code uploadsBroken}) and downloads whose reader went away
 * before their end ({@code downloadsBroken}, and their URIs: {@code brokenDownloads}).
 */
public final class TestBackend implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TestBackend.class);

    private final Vertx vertx = Vertx.vertx();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong uploadsStarted = new AtomicLong();
    private final AtomicLong uploadsBroken = new AtomicLong();
    /** URIs of the downloads that broke off, once per break: their count is {@code downloadsBroken}. */
    private final Queue<String> brokenDownloads = new ConcurrentLinkedQueue<>();
    private final HttpServer server;

    public TestBackend() throws Exception {
        server = vertx.createHttpServer(new HttpServerOptions().setMaxHeaderSize(64 * 1024))
                .requestHandler(this::handle)
                .connectionHandler(c -> c.exceptionHandler(e -> LOG.warnf("backend connection failed: %s", e)))
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    public int port() {
        return server.actualPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    private void handle(HttpServerRequest request) {
        String path = request.path();
        if (path.equals("/__hits")) {
            request.response().end(new JsonObject().put("hits", hits.get())
                    .put("uploadsStarted", uploadsStarted.get())
                    .put("uploadsBroken", uploadsBroken.get())
                    .put("downloadsBroken", brokenDownloads.size())
                    .put("brokenDownloads", new JsonArray(List.copyOf(brokenDownloads)))
                    .encode());
            return;
        }
        if (path.equals("/__reset")) {
            for (AtomicLong counter : new AtomicLong[]{hits, uploadsStarted, uploadsBroken}) {
                counter.set(0);
            }
            brokenDownloads.clear();
            request.response().end("{}");
            return;
        }
        hits.incrementAndGet();
        if (path.equals("/slow")) {
            return; // never answers: the gateway's upstream timeout must fire
        }
        if (path.startsWith("/download/")) {
            download(countBreak(request), Long.parseLong(path.substring("/download/".length())));
            return;
        }
        if (path.startsWith("/stall/")) {
            // n bytes of a chunked answer, then silence, the connection open: a backend hung mid-answer
            countBreak(request).setChunked(true)
                    .write(Buffer.buffer(new byte[Integer.parseInt(path.substring("/stall/".length()))]));
            return;
        }
        if (path.startsWith("/break/")) {
            breakOff(request, Integer.parseInt(path.substring("/break/".length())));
            return;
        }
        request.exceptionHandler(e -> {
            uploadsBroken.incrementAndGet();
            LOG.debugf("backend request %s failed: %s", path, e);
        });
        CRC32 crc = new CRC32();
        AtomicLong bytes = new AtomicLong();
        request.handler(chunk -> {
            if (bytes.get() == 0) {
                uploadsStarted.incrementAndGet();
            }
            crc.update(chunk.getBytes());
            bytes.addAndGet(chunk.length());
        });
        request.endHandler(v -> {
            JsonObject headers = new JsonObject();
            request.headers().forEach(h -> headers.put(h.getKey().toLowerCase(), h.getValue()));
            HttpServerResponse response = request.response();
            if (path.equals("/headers")) {
                response.putHeader("Connection", "keep-alive, X-Secret-Hop").putHeader("X-Secret-Hop", "must not pass");
            }
            response.putHeader("Content-Type", "application/json")
                    .putHeader("X-Backend", "test")
                    .end(new JsonObject()
                            .put("method", request.method().name())
                            .put("uri", request.uri())
                            .put("headers", headers)
                            .put("bytes", bytes.get())
                            .put("crc", crc.getValue())
                            .encode());
        });
    }

    /** {@code request}'s answer, its URI noted in {@code brokenDownloads} if its connection closes before its end. */
    private HttpServerResponse countBreak(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        response.closeHandler(v -> {
            if (!response.ended()) {
                brokenDownloads.add(request.uri());
            }
        });
        return response;
    }

    /** Sends {@code sent} bytes of an answer declared longer, then cuts the connection mid-body. */
    private void breakOff(HttpServerRequest request, int sent) {
        HttpServerResponse response = request.response();
        String length = request.getParam("length");
        if (length != null) {
            response.putHeader("Content-Length", length);
        } else {
            response.setChunked(true);
        }
        response.write(Buffer.buffer(new byte[sent])).onComplete(v -> request.connection().close());
    }

    /** Streams {@code total} bytes of a fixed pattern with back-pressure (chunked). */
    private static void download(HttpServerResponse response, long total) {
        response.setChunked(true).putHeader("Content-Type", "application/octet-stream");
        Buffer chunk = Buffer.buffer(new byte[64 * 1024]);
        for (int i = 0; i < chunk.length(); i++) {
            chunk.setByte(i, (byte) i);
        }
        new Object() {

            long left = total;

            void pump() {
                while (left > 0 && !response.writeQueueFull()) {
                    int n = (int) Math.min(left, chunk.length());
                    response.write(n == chunk.length() ? chunk : chunk.slice(0, n));
                    left -= n;
                }
                if (left == 0) {
                    response.end();
                } else {
                    response.drainHandler(v -> pump());
                }
            }
        }.pump();
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
