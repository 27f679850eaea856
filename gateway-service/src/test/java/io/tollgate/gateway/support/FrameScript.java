package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URLDecoder;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrame;

/**
 * Frames a test asks a WebSocket backend to send, written as words: {@code text:<payload>}, {@code binary:<length>}
 * ({@link RawWebSocket#counting counting} bytes), {@code cont:<payload>} (a continuation), each final, or not with
 * {@code ~} after its kind ({@code text~:one}); {@code ping:<payload>}, {@code pong:<payload>} and
 * {@code close:<code>:<reason>}. Payloads and reasons are URL-encoded UTF-8 ({@code %F0%9F%91%8B}, {@code +}).
 */
public final class FrameScript {

    private FrameScript() {
    }

    /** Sends {@code socket} the frames {@code script} names, in its order; a close as the socket's own close. */
    public static void send(WebSocketBase socket, String script) {
        for (String word : script.trim().split(" +")) {
            String[] parts = word.split(":", 3);
            String payload = parts.length > 1 ? URLDecoder.decode(parts[1], UTF_8) : "";
            if (parts[0].equals("close")) {
                socket.close(Short.parseShort(payload), URLDecoder.decode(parts[2], UTF_8));
            } else {
                socket.writeFrame(frame(parts[0].replace("~", ""), !parts[0].endsWith("~"), payload));
            }
        }
    }

    private static WebSocketFrame frame(String kind, boolean fin, String payload) {
        return switch (kind) {
            case "text" -> WebSocketFrame.textFrame(payload, fin);
            case "binary" -> WebSocketFrame.binaryFrame(Buffer.buffer(RawWebSocket.counting(Integer.parseInt(payload))),
                    fin);
            case "cont" -> WebSocketFrame.continuationFrame(Buffer.buffer(payload), fin);
            case "ping" -> WebSocketFrame.pingFrame(Buffer.buffer(payload));
            case "pong" -> WebSocketFrame.pongFrame(Buffer.buffer(payload));
            default -> throw new IllegalArgumentException("no frame of kind " + kind);
        };
    }
}
