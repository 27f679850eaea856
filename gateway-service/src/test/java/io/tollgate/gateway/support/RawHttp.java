package io.tollgate.gateway.support;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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
