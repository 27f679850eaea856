package io.tollgate.counter.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A private Redis Cluster for tests: {@code primaries} primaries with {@code replicas} replicas each,
 * every node a {@code redis-server} on a free loopback port; created with
 * {@code redis-cli --cluster create} and ready (every node {@code cluster_state:ok}, all 16384 slots
 * assigned, every replica attached and synced, so it can take over) when the constructor returns. {@link #close()} stops them
 * all.
 */
public final class RedisCluster implements AutoCloseable {

    /** How long a node may be unreachable before the cluster fails it over; short, for failover tests. */
    private static final String NODE_TIMEOUT_MS = "2000";
    /**
     * A primary sends its data to a replica at once: by default it waits 5 s for more replicas to share a diskless
     * transfer, and every cluster (and every node restarted) would wait that long to be ready.
     */
    private static final String SYNC_DELAY_S = "0";

    private final List<RedisProcess> nodes = new ArrayList<>();
    private final int primaryCount;
    private final int replicasEach;

    /** Three primaries, one replica each. */
    public RedisCluster() {
        this(3, 1);
    }

    /** {@code primaries} primaries with {@code replicas} replicas each. */
    public RedisCluster(int primaries, int replicas) {
        if (primaries < 3 || replicas < 0) {
            throw new IllegalArgumentException(
                    "Redis Cluster needs >= 3 primaries and >= 0 replicas, got " + primaries + " + " + replicas);
        }
        this.primaryCount = primaries;
        this.replicasEach = replicas;
        try {
            for (int i = 0; i < primaries * (1 + replicas); i++) {
                nodes.add(RedisProcess.start(true, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", NODE_TIMEOUT_MS, "--repl-diskless-sync-delay", SYNC_DELAY_S));
            }
            create();
            awaitReady();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Every node's address, {@code redis://127.0.0.1:<port>}, in start order. */
    public List<String> addresses() {
        return nodes.stream().map(RedisProcess::address).toList();
    }

    /** The addresses of the nodes that are primaries now, as a live node sees it. */
    public List<String> primaries() {
        return roles().entrySet().stream().filter(e -> e.getValue()).map(Map.Entry::getKey).sorted().toList();
    }

    /** The address of the primary that owns {@code key}'s slot now. */
    public String ownerOf(String key) {
        try {
            int port = liveNode().port();
            long slot = (Long) Resp.call(port, "CLUSTER", "KEYSLOT", key);
            @SuppressWarnings("unchecked")
            List<List<Object>> ranges = (List<List<Object>>) Resp.call(port, "CLUSTER", "SLOTS");
            for (List<Object> range : ranges) {
                if ((Long) range.get(0) <= slot && slot <= (Long) range.get(1)) {
                    @SuppressWarnings("unchecked")
                    List<Object> primary = (List<Object>) range.get(2);
                    return "redis://127.0.0.1:" + primary.get(1);
                }
            }
            throw new IllegalStateException("no node owns slot " + slot);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the primary at {@code address} has every write so far on at least one replica (at most 5 s):
     * how many replicas have them, by the offsets they acknowledged ({@code INFO replication}) against the
     * primary's own. ({@code WAIT} would not do: it waits for the writes of its own connection, and a connection
     * of its own has written nothing, so it answers at once.) A replica acknowledges once a second, or when asked.
     */
    public long replicated(String address) {
        int port = node(address).port();
        long written = replicationField(port, "master_repl_offset");
        try {
            Awaitility.await("a replica of " + address + " at offset " + written)
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> replicasAt(port, written) >= 1);
        } catch (ConditionTimeoutException notYet) {
            // answered below: how many have them
        }
        return replicasAt(port, written);
    }

    /** How many replicas of the primary at {@code port} acknowledged at least {@code offset}. */
    private static long replicasAt(int port, long offset) {
        return replication(port).lines()
                .filter(line -> line.matches("slave\\d+:.*"))
                .map(line -> line.replaceAll(".*offset=(\\d+).*", "$1"))
                .filter(acked -> Long.parseLong(acked) >= offset)
                .count();
    }

    private static long replicationField(int port, String name) {
        return replication(port).lines()
                .filter(line -> line.startsWith(name + ":"))
                .mapToLong(line -> Long.parseLong(line.substring(name.length() + 1).strip()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("INFO replication has no " + name));
    }

    private static String replication(int port) {
        try {
            return Resp.text(port, "INFO", "replication");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The hash slot of {@code key}. */
    public int slotOf(String key) {
        return (int) (long) (Long) call(liveNode().port(), "CLUSTER", "KEYSLOT", key);
    }

    /**
     * Starts moving {@code slot} from the primary at {@code from} to the one at {@code to}, as
     * {@code redis-cli --cluster reshard} does: the target imports it, the source migrates it. Until
     * {@link #finishMoving}, a key of the slot is served where it is; one the source no longer holds is
     * answered {@code ASK}.
     */
    public void startMoving(int slot, String from, String to) {
        call(node(to).port(), "CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", id(from));
        call(node(from).port(), "CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", id(to));
    }

    /** Moves {@code keys} (of a slot being moved) from the primary at {@code from} to the one at {@code to}. */
    public void moveKeys(String from, String to, List<String> keys) {
        List<String> command = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", Integer.toString(node(to).port()), "",
                "0", "5000", "KEYS"));
        command.addAll(keys);
        Object reply = call(node(from).port(), command.toArray(String[]::new));
        if (!"OK".equals(String.valueOf(reply))) {
            throw new IllegalStateException("MIGRATE of " + keys + " answered " + reply);
        }
    }

    /** Gives {@code slot} to the primary at {@code to} on every primary: the move is over. */
    public void finishMoving(int slot, String to) {
        String target = id(to);
        for (String primary : primaries()) {
            call(node(primary).port(), "CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", target);
        }
    }

    private String id(String address) {
        return String.valueOf(call(node(address).port(), "CLUSTER", "MYID"));
    }

    private static Object call(int port, String... command) {
        try {
            return Resp.call(port, command);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the node at {@code address} at once (SIGKILL), as a crash; the cluster may fail it over. */
    public void kill(String address) {
        node(address).kill();
    }

    private RedisProcess node(String address) {
        return nodes.stream()
                .filter(n -> n.address().equals(address))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + address));
    }

    /** Kills every node at once: the whole store is gone. */
    public void killAll() {
        nodes.forEach(RedisProcess::kill);
    }

    /** Starts every killed node again, and returns once the cluster is whole and ready. */
    public void restartAll() {
        nodes.forEach(RedisProcess::restart);
        awaitReady();
    }

    /** Stops every node and deletes their temp dirs. */
    @Override
    public void close() {
        nodes.forEach(RedisProcess::close);
    }

    private void create() {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        nodes.forEach(n -> command.add("127.0.0.1:" + n.port()));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasEach), "--cluster-yes"));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run redis-cli (is it on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitReady() {
        int total = nodes.size();
        Awaitility.await("cluster of " + total + " nodes ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> nodes.stream().allMatch(this::ready) && primaries().size() == primaryCount
                        && roles().size() == total);
    }

    private boolean ready(RedisProcess node) {
        String info;
        try {
            info = Resp.text(node.port(), "CLUSTER", "INFO");
        } catch (IOException e) {
            return false;
        }
        return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:16384")
                && info.contains("cluster_slots_ok:16384") && info.contains("cluster_known_nodes:" + nodes.size())
                && replicationUp(node);
    }

    /**
     * A replica must have synced with its primary: one that never did refuses to take over (its data
     * counts as too old), so failover tests would wait forever.
     */
    private static boolean replicationUp(RedisProcess node) {
        try {
            String replication = Resp.text(node.port(), "INFO", "replication");
            return replication.contains("role:master") || replication.contains("master_link_status:up");
        } catch (IOException e) {
            return false;
        }
    }

    /** Address → whether primary, for every node a live node knows as connected. */
    private Map<String, Boolean> roles() {
        try {
            String table = Resp.text(liveNode().port(), "CLUSTER", "NODES");
            return table.lines()
                    .map(line -> line.split(" "))
                    .filter(f -> f.length > 7 && !f[2].contains("fail") && "connected".equals(f[7]))
                    .collect(Collectors.toMap(f -> "redis://" + f[1].substring(0, f[1].indexOf('@')),
                            f -> f[2].contains("master"), (a, b) -> a));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private RedisProcess liveNode() {
        return nodes.stream()
                .filter(RedisProcess::alive)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no live node"));
    }

}
