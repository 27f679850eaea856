import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;

/**
 * The WebSocket client of bench/protocols/websocket.sh: a single-file program (run with {@code java -cp <Vert.x
 * jars> WsBench.java key=value...}) that echoes text messages through the gateway and straight to the demo
 * backend's {@code /ws/echo}, the two taking turns, and prints one row per run (see summarise.py):
 * <ul>
 * <li>latency: one socket, LATENCY_MESSAGES messages one after the other, each sent when the last came back;</li>
 * <li>throughput: SOCKETS sockets, each keeping WINDOW messages outstanding until it has sent PER_SOCKET or
 * DURATION seconds have passed, then waiting for its echoes.</li>
 * </ul>
 * Each row carries the gateway's and the backend's CPU (/proc/PID/stat utime + stime) per echoed message.
 */
public class WsBench {

    static Map<String, String> args = new HashMap<>();
    static Vertx vertx;
    static WebSocketClient client;
    static String message;

    static int arg(String name) {
        return Integer.parseInt(args.get(name));
    }

    public static void main(String[] argv) throws Exception {
        for (String a : argv) {
            int eq = a.indexOf('=');
            args.put(a.substring(0, eq), a.substring(eq + 1));
        }
        if (arg("seconds") < 1 || arg("warmup_seconds") < 1) {
            throw new IllegalArgumentException("seconds and warmup_seconds must be 1 or more");
        }
        message = "x".repeat(arg("size"));
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2).setPreferNativeTransport(true));
        client = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxConnections(1024)
                .setConnectTimeout(5000));
        int rounds = arg("rounds");
        String[] variants = {"direct", "gateway"};
        try {
            log("warm-up: " + args.get("warmup_seconds") + " s of throughput and " + args.get("latency_warmup")
                    + " sequential messages, each variant");
            for (String v : variants) {
                throughput(v, arg("warmup_seconds"), Integer.MAX_VALUE);
                latency(v, arg("latency_warmup"));
            }
            List<String> rows = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                for (String v : inTurn(variants, r)) {
                    emit(rows, r + " " + v + " latency " + latency(v, arg("latency_messages")));
                }
            }
            for (int r = 1; r <= rounds; r++) {
                for (String v : inTurn(variants, r)) {
                    emit(rows, r + " " + v + " throughput " + throughput(v, arg("seconds"), arg("per_socket")));
                }
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    static void emit(List<String> rows, String row) {
        rows.add(row);
        System.out.println(row);
        System.out.flush();
        log(row);
    }

    static void log(String line) {
        System.err.println(line);
    }

    static String[] inTurn(String[] variants, int round) {
        if (round % 2 == 1) {
            return variants;
        }
        String[] reversed = variants.clone();
        for (int i = 0; i < reversed.length; i++) {
            reversed[i] = variants[variants.length - 1 - i];
        }
        return reversed;
    }

    /** An open socket and the event loop it lives on. */
    record Socket(WebSocket ws, Context context) {
    }

    static Socket connect(String variant) throws Exception {
        int port = arg(variant + "_port");
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI(args.get("path")).addHeader("X-API-Key", "bench");
        Promise<Socket> opened = Promise.promise();
        client.connect(options).onComplete(ar -> {
            if (ar.succeeded()) {
                opened.complete(new Socket(ar.result(), Vertx.currentContext()));
            } else {
                opened.fail(ar.cause());
            }
        });
        return await(opened.future(), 10);
    }

    static <T> T await(Future<T> future, long seconds) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    }

    /** "n p50 p90 p99 p99.9 max mean" in µs, then {@link #perMessage}. */
    static String latency(String variant, int n) throws Exception {
        Socket socket = connect(variant);
        long[] took = new long[n];
        Promise<Void> done = Promise.promise();
        long[] sentAt = new long[1];
        int[] i = new int[1];
        long[] cpu0 = cpu();
        socket.context().runOnContext(v -> {
            socket.ws().textMessageHandler(text -> {
                took[i[0]++] = System.nanoTime() - sentAt[0];
                if (i[0] == n) {
                    done.complete();
                } else {
                    sentAt[0] = System.nanoTime();
                    socket.ws().writeTextMessage(message);
                }
            });
            sentAt[0] = System.nanoTime();
            socket.ws().writeTextMessage(message);
        });
        await(done.future(), 120);
        long[] cpu1 = cpu();
        await(socket.ws().close(), 10);
        Arrays.sort(took);
        double mean = Arrays.stream(took).average().orElse(0) / 1000.0;
        return String.format("%d %.1f %.1f %.1f %.1f %.1f %.1f %s", n, pct(took, 50), pct(took, 90), pct(took, 99),
                pct(took, 99.9), took[n - 1] / 1000.0, mean, perMessage(cpu0, cpu1, n));
    }

    static double pct(long[] sorted, double p) {
        int at = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, at))] / 1000.0;
    }

    /** "messages seconds messages/s", then {@link #perMessage}. */
    static String throughput(String variant, int seconds, int perSocket) throws Exception {
        int sockets = arg("sockets");
        int window = arg("window");
        List<Socket> open = new ArrayList<>();
        for (int s = 0; s < sockets; s++) {
            open.add(connect(variant));
        }
        AtomicLong echoed = new AtomicLong();
        AtomicInteger running = new AtomicInteger(sockets);
        Promise<Void> done = Promise.promise();
        long[] cpu0 = cpu();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
        for (Socket socket : open) {
            socket.context().runOnContext(v -> {
                int[] sent = new int[1];
                int[] back = new int[1];
                socket.ws().textMessageHandler(text -> {
                    back[0]++;
                    echoed.incrementAndGet();
                    if (sent[0] < perSocket && System.nanoTime() < deadline) {
                        sent[0]++;
                        socket.ws().writeTextMessage(message);
                    } else if (back[0] == sent[0] && running.decrementAndGet() == 0) {
                        done.complete();
                    }
                });
                for (int k = 0; k < window && sent[0] < perSocket; k++) {
                    sent[0]++;
                    socket.ws().writeTextMessage(message);
                }
            });
        }
        await(done.future(), seconds + 60L);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long[] cpu1 = cpu();
        for (Socket socket : open) {
            await(socket.ws().close(), 10);
        }
        long n = echoed.get();
        return String.format("%d %.3f %.0f %s", n, elapsed, n / elapsed, perMessage(cpu0, cpu1, n));
    }

    /** utime + stime in clock ticks of the gateway and of the backend, now. */
    static long[] cpu() throws Exception {
        return new long[] {ticks(args.get("gateway_pid")), ticks(args.get("backend_pid"))};
    }

    static long ticks(String pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", pid, "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
    }

    /** "gatewayCpu backendCpu": CPU µs per message. */
    static String perMessage(long[] before, long[] after, long messages) {
        double us = 1e6 / arg("hz") / Math.max(1, messages);
        return String.format("%.1f %.1f", (after[0] - before[0]) * us, (after[1] - before[1]) * us);
    }
}
