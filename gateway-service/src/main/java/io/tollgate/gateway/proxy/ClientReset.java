package io.tollgate.gateway.proxy;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.StreamResetException;

/**
 * How a client gave up its exchange, as the code the upstream's stream is reset with in turn: the code of the
 * client's own RST_STREAM, so that a gRPC client's cancel reaches the server as {@code CANCEL}; {@code CANCEL} too
 * when the client left otherwise (its connection closed, an HTTP/1.1 client gone), since the stream is no longer
 * needed (RFC 9113 §7). An upstream reset with {@code NO_ERROR} would read as a request that ended early, not as
 * a cancel.
 */
final class ClientReset {

    /** RFC 9113 §7. */
    static final long CANCEL = 0x8;

    private long code = CANCEL;

    private ClientReset() {
    }

    /** Reads the code of a reset of {@code response}'s stream, which Vert.x reports to its exception handler. */
    static ClientReset of(HttpServerResponse response) {
        ClientReset reset = new ClientReset();
        response.exceptionHandler(reset::failed);
        return reset;
    }

    /** The code of {@code err} when it is a stream's reset, else {@link #CANCEL}. */
    static long code(Throwable err) {
        return err instanceof StreamResetException reset ? reset.getCode() : CANCEL;
    }

    private void failed(Throwable err) {
        if (err instanceof StreamResetException reset) {
            code = reset.getCode();
        }
    }

    /** The code of the client's reset, or {@link #CANCEL} when it has not reset its stream (or left otherwise). */
    long code() {
        return code;
    }
}
