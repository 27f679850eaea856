package io.tollgate.counter.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP client for test support: enough to probe and administer a Redis process
 * (PING, INFO, CLUSTER ...) before any real client connects. Not for the code under test.
 */
public final class Resp {

    private Resp() {
    }

    /**
     * Sends one command to 127.0.0.1:port and returns its reply: a String (status or bulk), a Long,
     * a List of replies, or null.
     *
     * @throws IOException
     * when the node cannot be reached or answers with an error
     */
    public static Object call(int port, String... command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(encode(command));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    /** As {@link #call}, for a reply known to be text. */
    public static String text(int port, String... command) throws IOException {
        return String.valueOf(call(port, command));
    }

    private static byte[] encode(String... command) {
        StringBuilder resp = new StringBuilder().append('*').append(command.length).append("\r\n");
        for (String part : command) {
            resp.append('$').append(part.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(part)
                    .append("\r\n");
        }
        return resp.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+' :
                return line;
            case '-' :
                throw new IOException("Redis error: " + line);
            case ':' :
                return Long.parseLong(line);
            case '$' : {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*' : {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default :
                throw new IOException("unexpected RESP type " + type + " before " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("connection closed mid-reply");
            }
            bytes.write(b);
        }
        in.read(); // the '\n' after '\r'
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
