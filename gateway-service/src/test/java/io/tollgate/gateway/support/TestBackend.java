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
import io.vertx.core.http.StreamResetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;

/**
 * A real HTTP backend on a free port that counts its hits and answers with what it received (method, uri,
 * headers, body length and CRC-32, computed while streaming: nothing is held whole). Control paths under
 * {@code /__} are not counted: {@code /__hits} (with the broken exchanges below and {@code resetCodes}, the codes of
 * the HTTP/2 resets of held answers), {@code /__reset}.
 * {@code /download/<n>} streams n bytes; {@code /slow} never answers; {@code /break/<n>} sends n bytes of
 * an answer it declares longer ({@code ?length=<m>}: as Content-Length m, else chunked), then cuts the connection;
 * {@code /stall/<n>} sends n bytes of a chunked answer, then nothing more, and keeps the connection open;
 * {@code /framing/<n>} answers n bytes with a Content-Length that its {@code Connection} header names.
 * Answers that say what they used: {@code /usage/header/<v>} in the header {@code X-Usage-Tokens: <v>},
 * {@code /usage/json/<v>} at {@code /usage/total_tokens} of a JSON body, {@code /usage/sse/<v>} in the last
 * event but one of a {@code text/event-stream} answer (then {@code data: [DONE]}); {@code <v>} is sent as it is
 * (nonsense included); compressed ones under {@code /coded/} ({@link CompressedAnswers}), long ones under
 * {@code /long/} ({@link LongAnswers}). {@code /hold} (and {@code /h2c/hold}) answers
 * only when {@code /__release} is called; {@code /__held} says how many wait. {@code .../trailers} answers with a
 * body and the trailers {@code grpc-status: 0} and {@code X-Checksum}, as a gRPC server ends a call.
 * {@code /h2c/reset/<code>} resets its HTTP/2 stream with that code before answering, {@code .../after-message} after
 * the head of a gRPC answer and one message. The backend
 * speaks HTTP/1.1 and, by prior knowledge, HTTP/2 in clear text (h2c); the echo says which ({@code version}).
 * Counted for the tests of broken streams: uploads whose first bytes arrived ({@code uploadsStarted}),
 * uploads that broke off before their end ({@code uploadsBroken}) and downloads whose reader went away
 * before their end ({@code downloadsBroken}, and their URIs: {@code brokenDownloads}).
 */
public final class TestBackend implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TestBackend.class);

    private final Vertx vertx = Vertx.vertx();
    private final AtomicLong hits = new AtomicLong();
    /** Connections accepted, of either protocol (an HTTP/2 connection carries many requests). */
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong uploadsStarted = new AtomicLong();
    private final AtomicLong uploadsBroken = new AtomicLong();
    /** URIs of the downloads that broke off, once per break: their count is {@code downloadsBroken}. */
    private final Queue<String> brokenDownloads = new ConcurrentLinkedQueue<>();
    /** The codes of the HTTP/2 resets of held answers ({@code /hold}), in the order they came. */
    private final Queue<Long> resetCodes = new ConcurrentLinkedQueue<>();
    private final HttpServer server;
    /** Answers of {@code /hold} not given yet. */
    private final Queue<HttpServerResponse> held = new ConcurrentLinkedQueue<>();

    public TestBackend() throws Exception {
        server = vertx.createHttpServer(new HttpServerOptions().setMaxHeaderSize(64 * 1024))
                .requestHandler(this::handle)
                .connectionHandler(c -> {
                    connections.incrementAndGet();
                    c.exceptionHandler(e -> LOG.warnf("backend connection failed: %s", e));
                })
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

    /**
     * Also serves the same paths over TLS, HTTP/2 or HTTP/1.1 by ALPN, with the PKCS#12 key store {@code p12}: an
     * {@code h2://} or {@code https://} upstream. Answers the port.
     */
    public int listenTls(String p12, String password) throws Exception {
        return vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(true)
                .setKeyCertOptions(new PfxOptions().setPath(p12).setPassword(password)))
                .requestHandler(this::handle)
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .actualPort();
    }

    private void handle(HttpServerRequest request) {
        String path = request.path();
        if (path.equals("/__hits")) {
            request.response().end(new JsonObject().put("hits", hits.get())
                    .put("uploadsStarted", uploadsStarted.get())
                    .put("connections", connections.get())
                    .put("uploadsBroken", uploadsBroken.get())
                    .put("downloadsBroken", brokenDownloads.size())
                    .put("brokenDownloads", new JsonArray(List.copyOf(brokenDownloads)))
                    .put("resetCodes", new JsonArray(List.copyOf(resetCodes)))
                    .encode());
            return;
        }
        if (path.equals("/__reset")) {
            for (AtomicLong counter : new AtomicLong[]{hits, uploadsStarted, uploadsBroken}) {
                counter.set(0);
            }
            brokenDownloads.clear();
            resetCodes.clear();
            request.response().end("{}");
            return;
        }
        if (path.equals("/__held")) {
            request.response().end(new JsonObject().put("held", held.size()).encode());
            return;
        }
        if (path.equals("/__release")) {
            int released = 0;
            for (HttpServerResponse response; (response = held.poll()) != null; released++) {
                if (!response.closed()) {
                    response.end("released");
                }
            }
            request.response().end(new JsonObject().put("released", released).encode());
            return;
        }
        hits.incrementAndGet();
        if (path.equals("/hold") || path.equals("/h2c/hold")) {
            HttpServerResponse response = request.response();
            response.closeHandler(v -> held.remove(response));
            response.exceptionHandler(e -> {
                if (e instanceof StreamResetException reset) {
                    resetCodes.add(reset.getCode());
                }
            });
            held.add(response);
            return;
        }
        if (path.startsWith("/h2c/reset/")) {
            reset(request.response(), path.substring("/h2c/reset/".length()));
            return;
        }
        if (path.startsWith("/usage/")) {
            usage(request.response(), path.substring("/usage/".length()));
            return;
        }
        if (path.startsWith("/coded/")) {
            CompressedAnswers.answer(request, path.substring("/coded/".length()));
            return;
        }
        if (path.startsWith("/long/")) {
            LongAnswers.answer(request.response(), path.substring("/long/".length()));
            return;
        }
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
        if (path.endsWith("/trailers")) {
            HttpServerResponse response = request.response().setChunked(true).putHeader("Content-Type", "text/plain");
            response.write("first part, ");
            response.trailers().add("grpc-status", "0").add("X-Checksum", "c0ffee");
            response.end("last part");
            return;
        }
        if (path.startsWith("/framing/")) {
            // a Content-Length answer whose Connection names its own framing: the gateway must keep it
            request.response().putHeader("Connection", "keep-alive, Content-Length")
                    .end(Buffer.buffer(new byte[Integer.parseInt(path.substring("/framing/".length()))]));
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
                            .put("version", request.version().name())
                            .put("authority", String.valueOf(request.authority()))
                            .put("headers", headers)
                            .put("bytes", bytes.get())
                            .put("crc", crc.getValue())
                            .encode());
        });
    }

    /**
     * Resets the stream with the code {@code how} names ({@code <code>}), before any answer; or ({@code
     * <code>/after-message}) after the head of a gRPC answer and one empty message, as a gRPC server that gives up
     * mid-call.
     */
    private static void reset(HttpServerResponse response, String how) {
        String[] parts = how.split("/");
        long code = Long.parseLong(parts[0]);
        if (parts.length == 1) {
            response.reset(code);
            return;
        }
        response.setChunked(true).putHeader("Content-Type", "application/grpc")
                .write(Buffer.buffer(new byte[5])) // an empty message: not compressed, 0 bytes long
                .onComplete(written -> response.reset(code));
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

    /** An answer that says it used {@code how}'s value: {@code header/<v>}, {@code json/<v>} or {@code sse/<v>}. */
    private static void usage(HttpServerResponse response, String how) {
        int slash = how.indexOf('/');
        String kind = how.substring(0, slash);
        String value = how.substring(slash + 1);
        switch (kind) {
            case "header" -> response.putHeader("X-Usage-Tokens", value).end("{\"answer\":\"42\"}");
            case "json" -> response.putHeader("Content-Type", "application/json").end("""
                    {"id": "cmpl-1", "choices": [{"index": 0, "message": {"role": "assistant",
                      "content": "a \\"usage\\": {\\"total_tokens\\": 1} in a string counts for nothing"}}],
                     "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": %s}}""".formatted(value));
            case "sse" -> {
                response.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=utf-8");
                for (int i = 0; i < 20; i++) {
                    response.write("data: {\"choices\": [{\"delta\": {\"content\": \"token " + i + "\"}}]}\n\n");
                }
                response.write("data: {\"choices\": [], \"usage\": {\"total_tokens\": " + value + "}}\r\n\r\n");
                response.end("data: [DONE]\n\n");
            }
            default -> response.setStatusCode(404).end();
        }
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
