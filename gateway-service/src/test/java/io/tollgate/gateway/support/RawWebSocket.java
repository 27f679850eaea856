package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client that writes its own frames (RFC 6455 §5.2) on a plain socket: masked as a client must, or not,
 * fragmented as told, with reserved bits, and a close frame whenever the test says, so that nothing a client library
 * does (answering a ping or a close, joining fragments, refusing a large frame or text that is not UTF-8) stands
 * between the test and the wire. It answers nothing itself: a ping it reads is the test's to answer.
 */
public final class RawWebSocket implements AutoCloseable {

    public static final int CONTINUATION = 0x0;
    public static final int TEXT = 0x1;
    public static final int BINARY = 0x2;
    public static final int CLOSE = 0x8;
    public static final int PING = 0x9;
    public static final int PONG = 0xA;

    /** What a test does on a raw socket, and the frames it read. */
    public interface Script {

        List<String> run(RawWebSocket socket) throws IOException;
    }

    /** A frame as read: {@code fin}, its opcode and its payload. */
    public record Frame(boolean fin, int opcode, byte[] payload) {

        /** The close code of a close frame, 1005 when it has none. */
        public int closeCode() {
            return payload.length < 2 ? 1005 : ByteBuffer.wrap(payload).getShort() & 0xFFFF;
        }

        /**
         * {@code "TEXT fin hello"}, {@code "BINARY more <hex>"}, {@code "CLOSE 4001 bye"}; a payload of more than 64
         * bytes as its length and a digest of its bytes, so that large frames compare whole; text that is not UTF-8
         * as {@code "not UTF-8 <hex>"}.
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
                            ? text(payload)
                            : HexFormat.of().formatHex(payload);
            return kind + (fin ? " fin " : " more ") + data;
        }

        private static String text(byte[] payload) {
            try {
                return UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(payload)).toString();
            } catch (CharacterCodingException notUtf8) {
                return "not UTF-8 " + HexFormat.of().formatHex(payload);
            }
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
        return open(port, path, apiKey, 0);
    }

    /**
     * {@link #open} with a receive buffer of {@code receiveBufferBytes} (the system's, growing as it reads, when 0): a
     * small one makes a client that does not read hold back its peer's writes soon.
     */
    public static RawWebSocket open(int port, String path, String apiKey, int receiveBufferBytes) throws IOException {
        WebSockets.Raw raw = WebSockets.rawUpgrade(port, path, apiKey, receiveBufferBytes);
        if (raw.answer().status() != 101) {
            raw.socket().close();
            throw new IOException("upgrade of " + path + " answered " + raw.answer().status());
        }
        return new RawWebSocket(raw.socket());
    }

    /**
     * {@code script} run on a new socket to {@code port}, and the frames it read, then {@link #after()}: what
     * became of the connection.
     */
    public static List<String> run(int port, String path, String apiKey, Script script) throws IOException {
        try (RawWebSocket socket = open(port, path, apiKey)) {
            List<String> frames = new ArrayList<>(script.run(socket));
            frames.add(socket.after());
            return frames;
        }
    }

    /** Writes one masked frame. */
    public RawWebSocket frame(boolean fin, int opcode, byte[] payload) throws IOException {
        return frame(fin, opcode, payload, true);
    }

    /** Writes one frame, masked or not (a client must mask; RFC 6455 §5.1). */
    public RawWebSocket frame(boolean fin, int opcode, byte[] payload, boolean masked) throws IOException {
        return frame((fin ? 0x80 : 0) | opcode, payload, masked);
    }

    /**
     * Writes one frame whose first byte is {@code first} (FIN, the three reserved bits RSV1-3 and the opcode; §5.2),
     * masked or not.
     */
    public RawWebSocket frame(int first, byte[] payload, boolean masked) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(payload.length + 14);
        frame.writeBytes(header(first, payload.length, masked));
        if (masked) {
            byte[] key = new byte[4];
            ThreadLocalRandom.current().nextBytes(key);
            byte[] body = new byte[payload.length];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (payload[i] ^ key[i & 3]);
            }
            frame.writeBytes(key);
            frame.writeBytes(body);
        } else {
            frame.writeBytes(payload);
        }
        out.write(frame.toByteArray()); // one write: a peer that refuses the head has the whole frame all the same
        out.flush();
        return this;
    }

    /** Writes a text message in one frame. */
    public RawWebSocket text(String text) throws IOException {
        return frame(true, TEXT, text.getBytes(UTF_8));
    }

    /** Writes a ping with {@code payload}. */
    public RawWebSocket ping(String payload) throws IOException {
        return frame(true, PING, payload.getBytes(UTF_8));
    }

    /** Writes a pong with {@code payload}. */
    public RawWebSocket pong(String payload) throws IOException {
        return frame(true, PONG, payload.getBytes(UTF_8));
    }

    /** Writes a close frame with {@code code} and {@code reason}. */
    public RawWebSocket close(int code, String reason) throws IOException {
        byte[] text = reason.getBytes(UTF_8);
        return frame(true, CLOSE, ByteBuffer.allocate(2 + text.length).putShort((short) code).put(text).array());
    }

    /** The next frame; fails when the connection ends before one, or after 10 s. */
    public Frame read() throws IOException {
        return frameFrom(in, readByte(in));
    }

    /**
     * The whole frames that one read of the socket returns (it waits for the first byte, then takes what arrived
     * with it), each {@linkplain Frame#describe() described}: frames written to the socket in one write arrive so.
     */
    public List<String> readOnce() throws IOException {
        byte[] chunk = new byte[256 * 1024];
        int length = in.read(chunk);
        return frames(Arrays.copyOf(chunk, Math.max(0, length))).stream().map(Frame::describe).toList();
    }

    /** The whole frames at the start of {@code bytes}, masked or not; a frame cut short at the end is left out. */
    public static List<Frame> frames(byte[] bytes) {
        InputStream read = new ByteArrayInputStream(bytes);
        List<Frame> frames = new ArrayList<>();
        try {
            for (int first = read.read(); first >= 0; first = read.read()) {
                frames.add(frameFrom(read, first));
            }
        } catch (IOException cutShort) {
            // the rest is still on its way
        }
        return frames;
    }

    private static Frame frameFrom(InputStream in, int first) throws IOException {
        int second = readByte(in);
        long length = second & 0x7F;
        if (length == 126) {
            length = ((readByte(in) << 8) | readByte(in));
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

    /**
     * {@code "END"} when the other end closes the connection next, {@code "RESET"} when it resets it, else the next
     * frame described.
     */
    public String after() throws IOException {
        int first;
        try {
            first = in.read();
        } catch (SocketException reset) {
            return "RESET";
        }
        if (first < 0) {
            return "END";
        }
        return frameFrom(in, first).describe();
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("connection ended");
        }
        return b;
    }

    private static byte[] header(int first, int length, boolean masked) {
        ByteArrayOutputStream head = new ByteArrayOutputStream(14);
        head.write(first);
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

    /** {@code text} in UTF-8. */
    public static byte[] utf8(String text) {
        return text.getBytes(UTF_8);
    }

    /** {@code length} bytes that differ with their place and with {@code length}. */
    public static byte[] counting(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + length);
        }
        return bytes;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
