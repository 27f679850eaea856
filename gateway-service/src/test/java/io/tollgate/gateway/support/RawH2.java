package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
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
 * space or a value with CR LF included, pseudo-headers in any order, missing or twice. It writes frames as a test
 * orders them (a second HEADERS or a DATA frame on a stream it ended, a reset, floods of resets and of CONTINUATION
 * frames); it reads the server's frames itself, acknowledging its SETTINGS and PINGs, and decodes the answer's header
 * blocks with Netty's HPACK decoder. Every read waits 10 s at most.
 */
public final class RawH2 implements AutoCloseable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(ISO_8859_1);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int CONTINUATION = 0x9;
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

    /** RFC 9113 §7. */
    public static final long PROTOCOL_ERROR = 0x1;
    public static final long STREAM_CLOSED = 0x5;
    public static final long CANCEL = 0x8;
    public static final long ENHANCE_YOUR_CALM = 0xb;

    /**
     * A frame the server sent: its type (RST_STREAM 0x3, GOAWAY 0x7, ...; -1 for the connection's end), flags, stream
     * and, for RST_STREAM and GOAWAY, the error code (else -1). A GOAWAY's stream is its last stream id.
     */
    public record Frame(int type, int flags, int stream, long code) {

        public boolean isReset() {
            return type == RST_STREAM;
        }

        public boolean isGoAway() {
            return type == GOAWAY;
        }

        public boolean isClosed() {
            return type == -1;
        }
    }

    /** What a flood wrote before the server stopped it, and the frames the server sent meanwhile. */
    public record Flood(long bytesWritten, List<Frame> frames) {

        /** The server's GOAWAY, or null when it sent none. */
        public Frame goAway() {
            return frames.stream().filter(Frame::isGoAway).findFirst().orElse(null);
        }

        /** Whether the server closed the connection. */
        public boolean closed() {
            return frames.stream().anyMatch(Frame::isClosed);
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
        this(port, "127.0.0.1");
    }

    /**
     * A connection to the server on 127.0.0.1 from {@code localAddress}, another loopback address such as 127.0.0.2
     * (Linux routes all of 127/8 to lo), so the server sees another peer.
     */
    public RawH2(int port, String localAddress) throws IOException {
        socket = new Socket();
        socket.bind(new InetSocketAddress(localAddress, 0));
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
        List<String[]> all = new ArrayList<>(pseudoHeaders("GET", path));
        all.addAll(fields);
        return request(all);
    }

    /**
     * A {@code method} request of {@code path} with {@code fields}, its {@code body} in one DATA frame that ends the
     * stream (null: none, the HEADERS frame ends it); how its stream ended.
     */
    public Answer send(String method, String path, List<String[]> fields, byte[] body)
            throws IOException, Http2Exception {
        List<String[]> all = new ArrayList<>(pseudoHeaders(method, path));
        all.addAll(fields);
        int stream = open(all, body == null);
        if (body != null) {
            data(stream, body, true);
        }
        return answer(stream);
    }

    /**
     * A request whose header block is {@code fields} and nothing else (its pseudo-headers among them, as the test
     * orders them), ended with its HEADERS frame; how its stream ended.
     */
    public Answer request(List<String[]> fields) throws IOException, Http2Exception {
        return answer(open(fields, true));
    }

    /** {@code :method}, {@code :scheme}, {@code :authority} (this connection's) and {@code :path}, in that order. */
    public List<String[]> pseudoHeaders(String method, String path) {
        return List.of(new String[]{":method", method}, new String[]{":scheme", "http"},
                new String[]{":authority", authority}, new String[]{":path", path});
    }

    /** A new stream opened by a HEADERS frame of {@code fields}, ending it when {@code endStream}; its id. */
    public int open(List<String[]> fields, boolean endStream) throws IOException {
        int stream = nextStream;
        nextStream += 2;
        headers(stream, fields, endStream);
        return stream;
    }

    /** A HEADERS frame of {@code fields} on {@code stream}, whatever its state. */
    public void headers(int stream, List<String[]> fields, boolean endStream) throws IOException {
        send(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), stream, block(fields));
    }

    /** A DATA frame on {@code stream}, whatever its state. */
    public void data(int stream, byte[] payload, boolean endStream) throws IOException {
        send(DATA, endStream ? END_STREAM : 0, stream, payload);
    }

    /** How {@code stream} ended: its answer's headers and body, or its reset. */
    public Answer answer(int stream) throws IOException, Http2Exception {
        Reading answer = new Reading();
        while (!answer.ended) {
            readFrame(stream, answer);
        }
        return new Answer(answer.headers, answer.body.toString(UTF_8), answer.resetCode, answer.frames);
    }

    /**
     * The answer's HEADERS of {@code stream} (the status and fields), without waiting for its body, which the server
     * may still be writing.
     */
    public Map<String, String> head(int stream) throws IOException, Http2Exception {
        Reading answer = new Reading();
        while (answer.headers.isEmpty() && !answer.ended) {
            readFrame(stream, answer);
        }
        return answer.headers;
    }

    /**
     * The frames the server sends from now on, RST_STREAM and GOAWAY with their codes, until none came for
     * {@code quiet} or the connection closed (then last, a frame of type -1). SETTINGS and PINGs are answered.
     */
    public List<Frame> framesFor(Duration quiet) throws IOException, Http2Exception {
        List<Frame> frames = new ArrayList<>();
        socket.setSoTimeout((int) quiet.toMillis());
        try {
            while (true) {
                Frame frame = nextFrame();
                frames.add(frame);
                if (frame.isClosed()) {
                    return frames;
                }
            }
        } catch (SocketTimeoutException quietNow) {
            return frames;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(10_000);
            }
        }
    }

    /**
     * Rapid reset (CVE-2023-44487): {@code streams} GETs of {@code path} with {@code fields}, each reset (CANCEL) in
     * the same write as its HEADERS, a hundred streams a write, until the server sends GOAWAY or closes the connection,
     * or all are sent; then the frames the server sent, until it closed or was quiet for 10 s.
     */
    public Flood rapidReset(String path, List<String[]> fields, int streams) throws IOException, Http2Exception {
        List<String[]> all = new ArrayList<>(pseudoHeaders("GET", path));
        all.addAll(fields);
        byte[] block = block(all);
        byte[] cancel = {0, 0, 0, (byte) CANCEL};
        return flood(() -> {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (int i = 0; i < 100; i++) {
                int stream = nextStream;
                nextStream += 2;
                frame(batch, HEADERS, END_HEADERS | END_STREAM, stream, block);
                frame(batch, RST_STREAM, 0, stream, cancel);
            }
            return batch.toByteArray();
        }, (long) streams / 100);
    }

    /**
     * A CONTINUATION flood: a GET's HEADERS frame without END_HEADERS, then CONTINUATION frames of
     * {@code frameBytes} each, none ending the header block, 16 KB or 64 frames a write, until {@code totalBytes} are written
     * or the server sends GOAWAY or closes the connection; then the frames the server sent, until it closed or was
     * quiet for 10 s.
     */
    public Flood continuationFlood(int frameBytes, long totalBytes) throws IOException, Http2Exception {
        int stream = nextStream;
        nextStream += 2;
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        byte[] opening = block(pseudoHeaders("GET", "/continuation-flood"));
        frame(first, HEADERS, END_STREAM, stream, opening);
        int perWrite = Math.max(1, Math.min(64, 16_384 / frameBytes));
        byte[] filler = new byte[frameBytes];
        java.util.Arrays.fill(filler, (byte) 'a');
        boolean[] opened = {false};
        return flood(() -> {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            if (!opened[0]) {
                opened[0] = true;
                batch.writeBytes(first.toByteArray());
            }
            for (int i = 0; i < perWrite; i++) {
                frame(batch, CONTINUATION, 0, stream, filler);
            }
            return batch.toByteArray();
        }, totalBytes / ((long) frameBytes * perWrite));
    }

    /** A source of the bytes of one write of a flood. */
    private interface Batch {

        byte[] next();
    }

    /**
     * Writes {@code batches} batches while a thread of its own reads the server's frames, until the server closes the
     * connection (a write fails) or all are written; then reads on until it closes or is quiet for 10 s.
     */
    private Flood flood(Batch batch, long batches) throws IOException, Http2Exception {
        serverSettings(); // read before the flood: a server that resets the connection may leave nothing to read
        List<Frame> frames = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread reader = new Thread(() -> {
            try {
                socket.setSoTimeout(10_000);
                while (true) {
                    Frame frame = nextFrame();
                    frames.add(frame);
                    if (frame.isClosed()) {
                        return;
                    }
                }
            } catch (IOException | Http2Exception | RuntimeException over) {
                // quiet for 10 s, or the connection reset: what came is what the server said
            }
        }, "raw-h2-flood-reader");
        reader.setDaemon(true);
        reader.start();
        long written = 0;
        try {
            for (long i = 0; i < batches && reader.isAlive(); i++) {
                byte[] bytes = batch.next();
                synchronized (out) {
                    out.write(bytes);
                    out.flush();
                }
                written += bytes.length;
                // a breath after each write: the server reads all of it before it closes, so the close is a FIN that
                // lets its GOAWAY be read, not a reset (for bytes it left unread) that would discard it
                Thread.sleep(5);
                if (frames.stream().anyMatch(Frame::isGoAway)) {
                    break;
                }
            }
        } catch (IOException closedUnderUs) {
            // the server closed the connection: the flood is over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            reader.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Flood(written, List.copyOf(frames));
    }

    /** The server's next frame, SETTINGS and PINGs answered on the way; a frame of type -1 when the connection ended. */
    private Frame nextFrame() throws IOException, Http2Exception {
        int head;
        try {
            head = in.read();
        } catch (java.net.SocketException reset) {
            return new Frame(-1, 0, 0, -1);
        }
        if (head < 0) {
            return new Frame(-1, 0, 0, -1);
        }
        int length = (head << 16) | in.readUnsignedShort();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int id = in.readInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (type == SETTINGS && (flags & ACK) == 0) {
            send(SETTINGS, ACK, 0, new byte[0]);
        } else if (type == PING && (flags & ACK) == 0) {
            send(PING, ACK, 0, payload);
        }
        if (type == HEADERS) {
            decode(id, flags, payload); // the decoder's table follows the server's, for the answers read after
        }
        if (type == RST_STREAM) {
            return new Frame(type, flags, id, code(payload, 0));
        }
        if (type == GOAWAY) {
            return new Frame(type, flags, ((payload[0] & 0x7f) << 24) | ((payload[1] & 0xff) << 16)
                    | ((payload[2] & 0xff) << 8) | (payload[3] & 0xff), code(payload, 4));
        }
        return new Frame(type, flags, id, -1);
    }

    private static long code(byte[] payload, int at) {
        return ((payload[at] & 0xffL) << 24) | ((payload[at + 1] & 0xff) << 16) | ((payload[at + 2] & 0xff) << 8)
                | (payload[at + 3] & 0xff);
    }

    private static byte[] block(List<String[]> fields) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        for (String[] field : fields) {
            literal(block, field[0], field[1]);
        }
        return block.toByteArray();
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
            Http2Headers block = decode(stream, flags, payload);
            block.forEach(field -> answer.headers.put(field.getKey().toString(), field.getValue().toString()));
            answer.ended = (flags & END_STREAM) != 0;
            answer.frames.add(answer.ended ? "HEADERS END_STREAM" : "HEADERS");
        } else if (id == stream && type == DATA) {
            answer.body.write(payload);
            answer.ended = (flags & END_STREAM) != 0;
            answer.frames.add(answer.ended ? "DATA END_STREAM" : "DATA");
        } else if (id == stream && type == RST_STREAM) {
            answer.frames.add("RST_STREAM");
            answer.resetCode = code(payload, 0);
            answer.ended = true;
        }
    }

    /** A HEADERS frame's header block, decoded (Vert.x sends its answers' HEADERS with a priority, or padded). */
    private Http2Headers decode(int stream, int flags, byte[] payload) throws Http2Exception {
        int padding = (flags & PADDED) != 0 ? payload[0] & 0xff : 0;
        int start = ((flags & PADDED) != 0 ? 1 : 0) + ((flags & PRIORITY) != 0 ? 5 : 0);
        return decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(payload, start, payload.length - start - padding));
    }

    private void send(int type, int flags, int stream, byte[] payload) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame(frame, type, flags, stream, payload);
        synchronized (out) { // a flood's reader answers PINGs while the flood writes
            out.write(frame.toByteArray());
            out.flush();
        }
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
