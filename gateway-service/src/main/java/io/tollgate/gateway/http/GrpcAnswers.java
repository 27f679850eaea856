package io.tollgate.gateway.http;

import java.nio.charset.StandardCharsets;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;

/**
 * The gateway's own answers to a gRPC call (a request of {@code Content-Type: application/grpc...}): what it would
 * answer as problem+json, as a gRPC client reads it instead. A trailers-only answer: HTTP 200, {@code Content-Type:
 * application/grpc}, {@code grpc-status} and {@code grpc-message} in its one HEADERS frame, which ends the stream,
 * beside the headers already set (the {@code RateLimit} fields, {@code retry-after}). A limited call is
 * {@code RESOURCE_EXHAUSTED} (8), the code gRPC clients and Google's APIs use for quota, where an HTTP 429 would read
 * as {@code UNAVAILABLE}.
 */
public final class GrpcAnswers {

    static final String GRPC = "application/grpc";
    static final String STATUS = "grpc-status";
    static final String MESSAGE = "grpc-message";
    private static final String HEX = "0123456789ABCDEF";

    /** gRPC status codes the gateway answers with. */
    static final int INVALID_ARGUMENT = 3;
    static final int DEADLINE_EXCEEDED = 4;
    static final int PERMISSION_DENIED = 7;
    static final int RESOURCE_EXHAUSTED = 8;
    static final int UNIMPLEMENTED = 12;
    static final int INTERNAL = 13;
    static final int UNAVAILABLE = 14;
    static final int UNAUTHENTICATED = 16;

    private GrpcAnswers() {
    }

    /** Whether {@code request} is a gRPC call: its content type is {@code application/grpc} or a subtype of it. */
    public static boolean isGrpc(HttpServerRequest request) {
        return isGrpc(request.getHeader("Content-Type"));
    }

    /**
     * Whether {@code contentType} is {@code application/grpc}, {@code application/grpc+<codec>} or either with
     * parameters, in any case; {@code application/grpcx} and the like are not. Only how a refusal is written
     * depends on it.
     */
    static boolean isGrpc(String contentType) {
        return contentType != null && contentType.regionMatches(true, 0, GRPC, 0, GRPC.length())
                && (contentType.length() == GRPC.length() || contentType.charAt(GRPC.length()) == '+'
                        || contentType.charAt(GRPC.length()) == ';');
    }

    /** The gRPC status for the HTTP status the gateway would have answered. */
    static int status(int http) {
        return switch (http) {
            case 400, 411, 414, 431 -> INVALID_ARGUMENT;
            case 401 -> UNAUTHENTICATED;
            case 403 -> PERMISSION_DENIED;
            case 404, 405 -> UNIMPLEMENTED;
            case 413, 429 -> RESOURCE_EXHAUSTED;
            case 502, 503 -> UNAVAILABLE;
            case 504 -> DEADLINE_EXCEEDED;
            default -> INTERNAL;
        };
    }

    /**
     * Answers {@code problem} (a problem+json body the gateway would send) as a trailers-only gRPC answer. Over
     * HTTP/2 that is one HEADERS frame that ends the stream, without the {@code Content-Length: 0} Vert.x would add, as
     * a gRPC server sends it (nor a {@code Connection} header, which HTTP/2 has not, {@link Http2Answers}); over
     * HTTP/1.1 the length frames the answer.
     */
    public static void send(HttpServerRequest request, JsonObject problem) {
        HttpServerResponse response = request.response();
        if (response.headWritten()) {
            response.reset();
            return;
        }
        if (request.version() == HttpVersion.HTTP_2) {
            // this takes the place of Http2Answers' handler: it drops Connection too
            response.headersEndHandler(v -> response.headers().remove(HttpHeaders.CONTENT_LENGTH)
                    .remove(HttpHeaders.CONNECTION));
        }
        String detail = problem.getString("detail", problem.getString("title", ""));
        response.setStatusCode(200)
                .putHeader("Content-Type", GRPC)
                .putHeader(RateLimitHeaders.CACHE_CONTROL, RateLimitHeaders.NO_STORE)
                .putHeader(STATUS, Integer.toString(status(problem.getInteger("status", 500))))
                .putHeader(MESSAGE, percentEncoded(detail))
                .end();
    }

    /**
     * {@code text} as a {@code grpc-message}: UTF-8, each byte outside printable ASCII and each {@code %}
     * percent-encoded, as the gRPC HTTP/2 protocol says.
     */
    static String percentEncoded(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 0x20 && c <= 0x7e && c != '%') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
            }
        }
        return out.toString();
    }
}
