package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client that writes its own frames (RFC 6455 §5.2) on a plain socket: masked as a client must, or not,
 * fragmented as told, and a close frame whenever the test says, so that nothing a client library does (answering a
 * close, joining fragments, refusing a large frame) stands between the test and the wire.
 */
public final class RawWebSocket implements AutoCloseable {

    public static final int CONTINUATION = 0x0;
    public static final int TEXT = 0x1;
    public static final int BINARY = 0x2;
    public static final int CLOSE = 0x8;
    public static final int PING = 0x9;
    public static final int PONG = 0xA;

    /** A frame as read: {@code fin}, its opcode and its payload. */
    public record Frame(boolean fin, int opcode, byte[] payload) {

        /** The close code of a close frame, 1005 when it has none. */
        public int closeCode() {
            return payload.length < 2 ? 1005 : ByteBuffer.wrap(payload).getShort() & 0xFFFF;
        }

        /**
         * {@code "TEXT fin hello"}, {@code "BINARY more <hex>"}, {@code "CLOSE 4001 bye"}; a payload of more than 64
         * bytes as its length and a digest of its bytes, so that large frames compare whole.
         */
        public String describe() {
            if (opcode == CLOSE) {
                return "CLOSE " + closeCode() + (payload.length > 2
                        ? " " + new String(payload, 2,
                                payload.length - 2, UTF_8)
                        : "");
            }
            String kind = switch (opcode) {
                case CONTINUATION -> "CONTINUATION";
                case TEXT -> "TEXT";
                case BINARY -> "BINARY";
                case PING -> "PING";
                case PONG -> "PONG";
                default -> "OPCODE" + opcode;
            };
            String data = payload.length > 64
                    ? payload.length + " bytes #" + Arrays.hashCode(payload)
                    : opcode == TEXT || opcode == CONTINUATION
                            ? new String(payload, UTF_8)
                            : HexFormat.of().formatHex(payload);
            return kind + (fin ? " fin " : " more ") + data;
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawWebSocket(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Upgrades a new connection to {@code port} on {@code path} with {@code apiKey}; fails unless it gets 101. */
    public static RawWebSocket open(int port, String path, String apiKey) throws IOException {
        WebSockets.Raw raw = WebSockets.rawUpgrade(port, path, apiKey);
        if (raw.answer().status() != 101) {
            raw.socket().close();
            throw new IOException("upgrade of " + path + " answered " + raw.answer().status());
        }
        return new RawWebSocket(raw.socket());
    }

    /** Writes one masked frame. */
    public RawWebSocket frame(boolean fin, int opcode, byte[] payload) throws IOException {
        return frame(fin, opcode, payload, true);
    }

    /** Writes one frame, masked or not (a client must mask; RFC 6455 §5.1). */
    public RawWebSocket frame(boolean fin, int opcode, byte[] payload, boolean masked) throws IOException {
        out.write(header(fin, opcode, payload.length, masked));
        if (masked) {
            byte[] key = new byte[4];
            ThreadLocalRandom.current().nextBytes(key);
            byte[] body = new byte[payload.length];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (payload[i] ^ key[i & 3]);
            }
            out.write(key);
            out.write(body);
        } else {
            out.write(payload);
        }
        out.flush();
        return this;
    }

    /** Writes a text message in one frame. */
    public RawWebSocket text(String text) throws IOException {
        return frame(true, TEXT, text.getBytes(UTF_8));
    }

    /** Writes a close frame with {@code code} and {@code reason}. */
    public RawWebSocket close(int code, String reason) throws IOException {
        byte[] text = reason.getBytes(UTF_8);
        return frame(true, CLOSE, ByteBuffer.allocate(2 + text.length).putShort((short) code).put(text).array());
    }

    /** The next frame; fails when the connection ends before one, or after 10 s. */
    public Frame read() throws IOException {
        return frameFrom(readByte());
    }

    private Frame frameFrom(int first) throws IOException {
        int second = readByte();
        long length = second & 0x7F;
        if (length == 126) {
            length = ((readByte() << 8) | readByte());
        } else if (length == 127) {
            length = ByteBuffer.wrap(in.readNBytes(8)).getLong();
        }
        byte[] key = (second & 0x80) != 0 ? in.readNBytes(4) : null;
        byte[] payload = in.readNBytes((int) length);
        if (payload.length < length) {
            throw new EOFException("connection ended mid-frame");
        }
        if (key != null) {
            for (int i = 0; i < payload.length; i++) {
                payload[i] ^= key[i & 3];
            }
        }
        return new Frame((first & 0x80) != 0, first & 0x0F, payload);
    }

    /** The frames up to and with the first close frame, each {@linkplain Frame#describe() described}. */
    public List<String> readUntilClose() throws IOException {
        List<String> frames = new ArrayList<>();
        Frame frame;
        do {
            frame = read();
            frames.add(frame.describe());
        } while (frame.opcode() != CLOSE);
        return frames;
    }

    /** Whether the other end closed the connection (end of stream) within 10 s; fails on a reset. */
    public boolean ended() throws IOException {
        return after().equals("END");
    }

    /** {@code "END"} when the other end closes the connection next, else the next frame described. */
    public String after() throws IOException {
        int first = in.read();
        if (first < 0) {
            return "END";
        }
        return frameFrom(first).describe();
    }

    private int readByte() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("connection ended");
        }
        return b;
    }

    private static byte[] header(boolean fin, int opcode, int length, boolean masked) {
        ByteArrayOutputStream head = new ByteArrayOutputStream(14);
        head.write((fin ? 0x80 : 0) | opcode);
        int mask = masked ? 0x80 : 0;
        if (length < 126) {
            head.write(mask | length);
        } else if (length <= 0xFFFF) {
            head.write(mask | 126);
            head.write(length >>> 8);
            head.write(length & 0xFF);
        } else {
            head.write(mask | 127);
            head.writeBytes(ByteBuffer.allocate(8).putLong(length).array());
        }
        return head.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
