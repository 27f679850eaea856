package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A WebSocket backend that breaks RFC 6455 on purpose. It accepts the handshake itself (§4.2.2) and on the raw
 * connection answers the client's first frame with a frame no client may take: {@code masked}, a text frame masked
 * (a server must not mask, §5.1); {@code rsv1}, a text frame with a reserved bit that no extension defines (§5.2);
 * {@code opcode3}, a frame of a reserved opcode. It hands on the close it is then sent, as {@code "<code> <reason>"}.
 */
final class BadServerFrames {

    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    /** Each kind's frame: {@code hi} as text, but for what is wrong with it. */
    private static final Map<String, byte[]> FRAMES = Map.of(
            "masked", new byte[]{(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 'h' ^ 1, 'i' ^ 2},
            "rsv1", new byte[]{(byte) 0xC1, 2, 'h', 'i'},
            "opcode3", new byte[]{(byte) 0x83, 2, 'h', 'i'});

    private BadServerFrames() {
    }

    /** Upgrades {@code request} and plays {@code kind}; {@code closes} gets the close frame the backend is sent. */
    static void serve(HttpServerRequest request, String kind, Consumer<String> closes) {
        byte[] bad = FRAMES.get(kind);
        request.response().putHeader("Upgrade", "websocket").putHeader("Connection", "Upgrade")
                .putHeader("Sec-WebSocket-Accept", accept(request.getHeader("Sec-WebSocket-Key")));
        request.toNetSocket().onSuccess(socket -> {
            Buffer read = Buffer.buffer();
            socket.handler(bytes -> {
                int before = RawWebSocket.frames(read.getBytes()).size();
                read.appendBuffer(bytes);
                List<RawWebSocket.Frame> frames = RawWebSocket.frames(read.getBytes());
                if (before == 0 && !frames.isEmpty()) {
                    socket.write(Buffer.buffer(bad)); // the answer to the first frame
                }
                for (RawWebSocket.Frame frame : frames.subList(before, frames.size())) {
                    if (frame.opcode() == RawWebSocket.CLOSE) {
                        closes.accept(frame.describe().substring("CLOSE ".length()));
                    }
                }
            });
        });
    }

    private static String accept(String key) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + GUID).getBytes(US_ASCII)));
        } catch (NoSuchAlgorithmException cannot) {
            throw new IllegalStateException(cannot);
        }
    }
}
