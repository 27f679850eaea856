package io.tollgate.e2e.support;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An HTTP/2 client in clear text (prior knowledge) that writes frames as an attacker would, one by one, and no client
 * library tidies: a request's HEADERS, then at once its RST_STREAM, or the TCP connection dropped under it. Header
 * blocks are HPACK literals without indexing or Huffman coding; a reader thread acknowledges the server's SETTINGS
 * and PINGs and tells when each stream ended (END_STREAM or RST_STREAM) and when the connection did (GOAWAY, or
 * closed).
 */
public final class H2Frames implements AutoCloseable {

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
    private static final int CANCEL = 0x8;

    private final Socket socket;
    private final OutputStream out;
    private final String authority;
    private final Map<Integer, CompletableFuture<Void>> streams = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private int nextStream = 1;

    private H2Frames(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        authority = "127.0.0.1:" + port;
        ByteArrayOutputStream opening = new ByteArrayOutputStream();
        opening.write(PREFACE);
        frame(opening, SETTINGS, 0, 0, new byte[0]);
        write(opening.toByteArray());
        Thread reader = new Thread(this::read, "h2-frames-" + port);
        reader.setDaemon(true);
        reader.start();
    }

    /** A connection to {@code port} on loopback, its preface and SETTINGS sent. */
    public static H2Frames open(int port) {
        try {
            return new H2Frames(port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends a GET of {@code path} with {@code headers} as a new stream, its HEADERS ending it; answers its id. The
     * returned stream's end is {@link #ended(int)}.
     */
    public int get(String path, Map<String, String> headers) {
        int stream = nextStream;
        nextStream += 2;
        streams.put(stream, new CompletableFuture<>());
        write(headersFrame(stream, path, headers));
        return stream;
    }

    /**
     * {@code count} GETs of {@code path}, each HEADERS followed at once by its RST_STREAM (CANCEL), written as they
     * are made; stops early when the server closes the connection. Answers how many were written.
     */
    public int resetEach(int count, String path, Map<String, String> headers) {
        for (int i = 0; i < count; i++) {
            if (closed.isDone()) {
                return i;
            }
            int stream = nextStream;
            nextStream += 2;
            ByteArrayOutputStream both = new ByteArrayOutputStream();
            both.writeBytes(headersFrame(stream, path, headers));
            frame(both, RST_STREAM, 0, stream, new byte[]{0, 0, 0, CANCEL});
            try {
                out.write(both.toByteArray());
                out.flush();
            } catch (IOException goneAway) {
                return i;
            }
        }
        return count;
    }

    /** Completes when stream {@code stream} ended: its answer whole, or reset by either side, or the connection gone. */
    public CompletableFuture<Void> ended(int stream) {
        return streams.get(stream);
    }

    /** Completes when the server sent GOAWAY or the connection closed. */
    public CompletableFuture<Void> closed() {
        return closed;
    }

    /** Drops the TCP connection without a GOAWAY: an RST, as a client that crashed or lost its network. */
    public void abort() {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // closed already
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closed already
        }
    }

    private byte[] headersFrame(int stream, String path, Map<String, String> headers) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82); // :method GET, indexed
        block.write(0x86); // :scheme http, indexed
        literal(block, 4, null, path); // :path, its name indexed
        literal(block, 1, null, authority); // :authority, its name indexed
        headers.forEach((name, value) -> literal(block, 0, name.toLowerCase(java.util.Locale.ROOT), value));
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame(frame, HEADERS, END_STREAM | END_HEADERS, stream, block.toByteArray());
        return frame.toByteArray();
    }

    /** A literal header field without indexing (RFC 7541 §6.2.2): a name index, or 0 and the name given. */
    private static void literal(ByteArrayOutputStream block, int nameIndex, String name, String value) {
        integer(block, 0x00, 4, nameIndex);
        if (nameIndex == 0) {
            string(block, name);
        }
        string(block, value);
    }

    private static void string(ByteArrayOutputStream block, String text) {
        byte[] bytes = text.getBytes(ISO_8859_1);
        integer(block, 0x00, 7, bytes.length); // no Huffman coding
        block.writeBytes(bytes);
    }

    /** An HPACK integer of an {@code prefix}-bit prefix (RFC 7541 §5.1), {@code first} holding the byte's high bits. */
    private static void integer(ByteArrayOutputStream block, int first, int prefix, int value) {
        int max = (1 << prefix) - 1;
        if (value < max) {
            block.write(first | value);
            return;
        }
        block.write(first | max);
        value -= max;
        while (value >= 128) {
            block.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        block.write(value);
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

    private synchronized void write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads frames until the connection closes: acknowledges SETTINGS and PING, and completes the streams that end. */
    private void read() {
        try {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] head = new byte[9];
            while (true) {
                in.readFully(head);
                int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | (head[2] & 0xff);
                int type = head[3];
                int flags = head[4];
                int stream = (head[5] & 0x7f) << 24 | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | (head[8] & 0xff);
                byte[] payload = new byte[length];
                in.readFully(payload);
                if (type == SETTINGS && (flags & ACK) == 0) {
                    reply(SETTINGS, ACK, 0, new byte[0]);
                } else if (type == PING && (flags & ACK) == 0) {
                    reply(PING, ACK, 0, payload);
                } else if (type == GOAWAY) {
                    break;
                } else if (type == RST_STREAM || (type == HEADERS || type == DATA) && (flags & END_STREAM) != 0) {
                    CompletableFuture<Void> ended = streams.get(stream);
                    if (ended != null) {
                        ended.complete(null);
                    }
                }
            }
        } catch (IOException | UncheckedIOException connectionGone) {
            // the end of the connection, as below
        }
        closed.complete(null);
        streams.values().forEach(stream -> stream.complete(null));
    }

    private void reply(int type, int flags, int stream, byte[] payload) {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame(frame, type, flags, stream, payload);
        write(frame.toByteArray());
    }
}
