package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * An HTTP/2 client in clear text (prior knowledge) on a plain socket, whose requests no client library checks: their
 * header blocks are HPACK literals (not indexed, no Huffman coding) of whatever bytes the test gives, a name with a
 * space or a value with CR LF included. One request at a time; it reads the server's frames itself, acknowledging its
 * SETTINGS and PINGs, and decodes the answer's header blocks with Netty's HPACK decoder. Every read waits 10 s at most.
 */
public final class RawH2 implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(ISO_8859_1);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;

    /**
     * How a stream ended: the answer's headers ({@code :status} among them, empty when none came), its body, the
     * code of the server's RST_STREAM, or -1 when it sent none, and the stream's frames as they came
     * ({@code "HEADERS END_STREAM"}, {@code "DATA"}, {@code "RST_STREAM"}, ...).
     */
    public record Answer(Map<String, String> headers, String body, long resetCode, List<String> frames) {

        /** The answer's status, or 0 when the stream was reset without one. */
        public int status() {
            String status = headers.get(":status");
            return status == null ? 0 : Integer.parseInt(status);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    private final String authority;
    /** The parameters of the server's first SETTINGS frame, once read. */
    private Map<Integer, Long> serverSettings;
    private int nextStream = 1;

    public RawH2(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
        authority = "127.0.0.1:" + port;
        ByteArrayOutputStream opening = new ByteArrayOutputStream();
        opening.write(PREFACE);
        frame(opening, SETTINGS, 0, 0, new byte[0]);
        out.write(opening.toByteArray());
        out.flush();
    }

    /** The parameters of the server's SETTINGS frame (identifier to value), as it sent them at the start. */
    public Map<Integer, Long> serverSettings() throws IOException, Http2Exception {
        while (serverSettings == null) {
            readFrame(-1, null);
        }
        return serverSettings;
    }

    /**
     * A GET of {@code path} with {@code fields} (name, value pairs, sent as they are) after the pseudo-headers, ended
     * with its HEADERS frame; how its stream ended.
     */
    public Answer get(String path, List<String[]> fields) throws IOException, Http2Exception {
        return send("GET", path, fields, null);
    }

    /**
     * A {@code method} request of {@code path} with {@code fields}, its {@code body} in one DATA frame that ends the
     * stream (null: none, the HEADERS frame ends it); how its stream ended.
     */
    public Answer send(String method, String path, List<String[]> fields, byte[] body)
            throws IOException, Http2Exception {
        int stream = nextStream;
        nextStream += 2;
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        literal(block, ":method", method);
        literal(block, ":scheme", "http");
        literal(block, ":authority", authority);
        literal(block, ":path", path);
        for (String[] field : fields) {
            literal(block, field[0], field[1]);
        }
        ByteArrayOutputStream frames = new ByteArrayOutputStream();
        frame(frames, HEADERS, END_HEADERS | (body == null ? END_STREAM : 0), stream, block.toByteArray());
        if (body != null) {
            frame(frames, DATA, END_STREAM, stream, body);
        }
        out.write(frames.toByteArray());
        out.flush();
        Reading answer = new Reading();
        while (!answer.ended) {
            readFrame(stream, answer);
        }
        return new Answer(answer.headers, answer.body.toString(UTF_8), answer.resetCode, answer.frames);
    }

    /** What has come of one stream so far. */
    private static final class Reading {

        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        long resetCode = -1;
        boolean ended;
        final List<String> frames = new ArrayList<>();
    }

    private void readFrame(int stream, Reading answer) throws IOException, Http2Exception {
        int length = (in.readUnsignedShort() << 8) | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int id = in.readInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (type == SETTINGS && (flags & ACK) == 0) {
            Map<Integer, Long> settings = new HashMap<>();
            for (int i = 0; i + 6 <= payload.length; i += 6) {
                int identifier = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
                long value = ((payload[i + 2] & 0xffL) << 24) | ((payload[i + 3] & 0xff) << 16)
                        | ((payload[i + 4] & 0xff) << 8) | (payload[i + 5] & 0xff);
                settings.put(identifier, value);
            }
            serverSettings = serverSettings == null ? settings : serverSettings;
            send(SETTINGS, ACK, 0, new byte[0]);
        } else if (type == PING && (flags & ACK) == 0) {
            send(PING, ACK, 0, payload);
        } else if (type == GOAWAY) {
            throw new IOException("the server went away (GOAWAY)");
        } else if (id == stream && type == HEADERS) {
            // Vert.x sends its answers' HEADERS with a priority; a padded frame is read the same way
            int padding = (flags & PADDED) != 0 ? payload[0] & 0xff : 0;
            int start = ((flags & PADDED) != 0 ? 1 : 0) + ((flags & PRIORITY) != 0 ? 5 : 0);
            Http2Headers block = decoder.decodeHeaders(stream,
                    Unpooled.wrappedBuffer(payload, start, payload.length - start - padding));
            block.forEach(field -> answer.headers.put(field.getKey().toString(), field.getValue().toString()));
            answer.ended = (flags & END_STREAM) != 0;
            answer.frames.add(answer.ended ? "HEADERS END_STREAM" : "HEADERS");
        } else if (id == stream && type == DATA) {
            answer.body.write(payload);
            answer.ended = (flags & END_STREAM) != 0;
            answer.frames.add(answer.ended ? "DATA END_STREAM" : "DATA");
        } else if (id == stream && type == RST_STREAM) {
            answer.frames.add("RST_STREAM");
            answer.resetCode = ((payload[0] & 0xffL) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8)
                    | (payload[3] & 0xff);
            answer.ended = true;
        }
    }

    private void send(int type, int flags, int stream, byte[] payload) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame(frame, type, flags, stream, payload);
        out.write(frame.toByteArray());
        out.flush();
    }

    /** A literal header field without indexing, new name, neither string Huffman-coded (RFC 7541 §6.2.2). */
    private static void literal(ByteArrayOutputStream block, String name, String value) {
        block.write(0x00);
        string(block, name.getBytes(ISO_8859_1));
        string(block, value.getBytes(ISO_8859_1));
    }

    private static void string(ByteArrayOutputStream block, byte[] bytes) {
        // a length on a 7-bit prefix (RFC 7541 §5.1), the Huffman bit clear
        int length = bytes.length;
        if (length < 127) {
            block.write(length);
        } else {
            block.write(127);
            length -= 127;
            while (length >= 128) {
                block.write((length & 0x7f) | 0x80);
                length >>>= 7;
            }
            block.write(length);
        }
        block.writeBytes(bytes);
    }

    private static void frame(ByteArrayOutputStream to, int type, int flags, int stream, byte[] payload) {
        to.write(payload.length >>> 16);
        to.write(payload.length >>> 8);
        to.write(payload.length);
        to.write(type);
        to.write(flags);
        to.write(stream >>> 24);
        to.write(stream >>> 16);
        to.write(stream >>> 8);
        to.write(stream);
        to.writeBytes(payload);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
