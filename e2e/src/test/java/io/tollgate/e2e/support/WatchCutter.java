package io.tollgate.e2e.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP relay in front of the rules service that can cut the watch stream while polls still pass: it scans
 * what clients send for {@code GET /api/v1/rules/watch} (on any request of a kept-alive connection), and
 * while {@link #cut(boolean)} is on, closes every connection that asked for the stream: the open ones at
 * once, new ones as soon as they ask.
 */
public final class WatchCutter implements AutoCloseable {

    private static final String WATCH = "GET /api/v1/rules/watch";

    private final ServerSocket server;
    private volatile int targetPort;
    private final AtomicBoolean cutting = new AtomicBoolean();
    private final Set<Socket> watches = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicInteger cutStreams = new java.util.concurrent.atomic.AtomicInteger();

    /** A relay that listens at once; {@link #target(int)} names the rules service before the first connection. */
    public WatchCutter() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "watch-cutter");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public void target(int port) {
        this.targetPort = port;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** While on, watch streams are closed; polls are untouched. */
    public void cut(boolean on) {
        cutting.set(on);
        if (on) {
            cutStreams.addAndGet(watches.size());
            watches.forEach(WatchCutter::closeQuietly);
        }
    }

    /** How many watch streams are open through the relay now. */
    public int openStreams() {
        return watches.size();
    }

    /** How many open watch streams a cut closed, and how many were refused while cut. */
    public int cutStreams() {
        return cutStreams.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Thread relay = new Thread(() -> relay(client), "watch-cutter-relay");
                relay.setDaemon(true);
                relay.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void relay(Socket client) {
        try (client; Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            // both streams taken here: a cut may close the sockets before the thread below starts
            InputStream fromUpstream = upstream.getInputStream();
            OutputStream toClient = client.getOutputStream();
            Thread back = new Thread(() -> pump(fromUpstream, toClient, client), "watch-cutter-back");
            back.setDaemon(true);
            back.start();
            forward(client, upstream);
            back.join();
        } catch (IOException | InterruptedException e) {
            // a cut or a closed peer ends the relay
        } finally {
            watches.remove(client);
        }
    }

    /** Client to rules service, watching for watch requests; a cut ends the connection. */
    private void forward(Socket client, Socket upstream) throws IOException {
        InputStream in = client.getInputStream();
        OutputStream out = upstream.getOutputStream();
        byte[] buffer = new byte[8192];
        String tail = "";
        try {
            for (int n; (n = in.read(buffer)) >= 0;) {
                String seen = tail + new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                if (seen.contains(WATCH)) {
                    if (cutting.get()) {
                        cutStreams.incrementAndGet();
                        return;
                    }
                    watches.add(client);
                }
                tail = seen.substring(Math.max(0, seen.length() - WATCH.length()));
                out.write(buffer, 0, n);
                out.flush();
            }
        } finally {
            closeQuietly(upstream);
        }
    }

    private static void pump(InputStream from, OutputStream to, Socket closeWhenDone) {
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = from.read(buffer)) >= 0;) {
                to.write(buffer, 0, n);
                to.flush();
            }
        } catch (IOException e) {
            // peer gone
        } finally {
            closeQuietly(closeWhenDone);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        watches.forEach(WatchCutter::closeQuietly);
    }
}
