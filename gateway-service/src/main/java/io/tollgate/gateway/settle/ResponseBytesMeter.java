package io.tollgate.gateway.settle;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/** The number of body bytes relayed, as sent (compressed when the backend compressed it). */
final class ResponseBytesMeter implements UsageMeter {

    private long bytes;

    @Override
    public void head(int status, MultiMap headers) {
    }

    @Override
    public void body(Buffer chunk) {
        bytes += chunk.length();
    }

    @Override
    public Usage end() {
        return new Usage.Used(bytes);
    }
}
