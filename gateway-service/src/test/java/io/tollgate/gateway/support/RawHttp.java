package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 read off a plain socket, for what an HTTP client library hides: interim answers such as
 * {@code 100 Continue}, and whether the server closes the connection.
 */
public final class RawHttp {

    /** One answer: its status, its headers (names lower case) and, with a Content-Length, its body. */
    public record Answer(int status, Map<String, String> headers, String body) {

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /**
     * One {@code GET} on a new connection from loopback address {@code from} (any 127.0.0.x: a caller on a host of
     * its own) to {@code port}, with {@code authorization}.
     */
    public static Answer get(String from, int port, String path, String authorization) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                    + authorization + "\r\nConnection: close\r\n\r\n").getBytes(US_ASCII));
            return read(socket.getInputStream());
        }
    }

    /**
     * One request sent byte for byte as given (no client library in between to tidy its path or headers), on a new
     * connection from loopback address {@code from} to {@code port}: {@code method} and {@code target} form the
     * request line, {@code headers} are whole lines ({@code "X-API-Key: k"}), sent in order, twice if given twice.
     */
    public static Answer exchange(String from, int port, String method, String target, List<String> headers)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                    .append("Host: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n");
            headers.forEach(h -> request.append(h).append("\r\n"));
            socket.getOutputStream().write(request.append("\r\n").toString().getBytes(ISO_8859_1));
            return read(socket.getInputStream());
        }
    }

    /**
     * {@code head} (the request line and header lines, each ending in CRLF, and the empty line) and then {@code body},
     * byte for byte, on a new connection from loopback address {@code from} to {@code port}: nothing is added, no
     * {@code Host} nor framing. Answers the first answer and, when {@code awaitClose}, whether the server then closed
     * the connection (read until the end or the socket's timeout).
     */
    public static Closing send(String from, int port, String head, byte[] body, boolean awaitClose)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.getOutputStream().write(head.getBytes(ISO_8859_1));
            socket.getOutputStream().write(body);
            InputStream in = socket.getInputStream();
            Answer answer = read(in);
            boolean closed = false;
            if (awaitClose) {
                try {
                    closed = in.read() < 0;
                } catch (SocketTimeoutException stillOpen) {
                    closed = false;
                } catch (SocketException reset) {
                    closed = true; // closed with bytes of ours unread: a reset is a close too
                }
            }
            return new Closing(answer, closed);
        }
    }

    /** An answer, and whether the connection closed after it (or was kept open for another request). */
    public record Closing(Answer answer, boolean closed) {
    }

    /**
     * {@code request} (any bytes: one request, several, or a request and what follows it) written at once on a new
     * connection from loopback address {@code from} to {@code port}; every answer read until the server closes the
     * connection (10 s at most).
     */
    public static List<Answer> exchangeAll(String from, int port, byte[] request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.getOutputStream().write(request);
            InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            List<Answer> answers = new java.util.ArrayList<>();
            try {
                while (true) {
                    in.mark(1);
                    if (in.read() < 0) {
                        return answers;
                    }
                    in.reset();
                    answers.add(readWhole(in));
                }
            } catch (SocketException reset) {
                return answers; // closed with bytes of ours unread: a reset is a close too
            }
        }
    }

    /** As {@link #read}, and a chunked body to its end (its trailers read and dropped). */
    private static Answer readWhole(InputStream in) throws IOException {
        Answer answer = read(in);
        if (!"chunked".equalsIgnoreCase(answer.header("Transfer-Encoding"))) {
            return answer;
        }
        StringBuilder chunks = new StringBuilder();
        for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
            chunks.append(new String(in.readNBytes(size), US_ASCII));
            line(in);
        }
        while (!line(in).isEmpty()) {
            // a trailer field
        }
        return new Answer(answer.status(), answer.headers(), chunks.toString());
    }

    private static int chunkSize(InputStream in) throws IOException {
        return Integer.parseInt(line(in).split(";")[0].strip(), 16);
    }

    /** Reads the next answer's head, and its body when it declares a Content-Length. */
    public static Answer read(InputStream in) throws IOException {
        String status = line(in);
        Map<String, String> headers = new HashMap<>();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        String length = headers.get("content-length");
        String body = length == null ? "" : new String(in.readNBytes(Integer.parseInt(length)), US_ASCII);
        return new Answer(Integer.parseInt(status.split(" ")[1]), headers, body);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed mid-answer after: " + line.toString(US_ASCII));
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(US_ASCII);
    }
}
