package io.tollgate.gateway.http;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/**
 * RFC 9457 {@code application/problem+json} answers the gateway gives itself (never the backend's), on the public
 * port and on the management interface.
 */
public final class Problems {

    static final String CONTENT_TYPE = "application/problem+json";

    private Problems() {
    }

    /** A problem body with {@code type}, {@code title}, {@code status} and {@code detail}. */
    public static JsonObject problem(String type, String title, int status, String detail) {
        return new JsonObject()
                .put("type", type)
                .put("title", title)
                .put("status", status)
                .put("detail", detail);
    }

    /** Sends {@code body} as the whole answer with its status. */
    public static void send(HttpServerResponse response, JsonObject body) {
        if (response.headWritten()) {
            response.reset();
            return;
        }
        response.setStatusCode(body.getInteger("status"))
                .putHeader("Content-Type", CONTENT_TYPE)
                .putHeader(RateLimitHeaders.CACHE_CONTROL, RateLimitHeaders.NO_STORE)
                .end(body.encode());
    }
}
