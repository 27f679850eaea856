package io.tollgate.gateway.usage;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * The number of body bytes relayed, as sent: compressed when the backend compressed them, since those are the bytes
 * that cross the network, and counting them costs nothing per byte (decompressing a download only to count it
 * would cost the event loop as much as the download's content, unbounded). An answer cut short has no count.
 */
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
