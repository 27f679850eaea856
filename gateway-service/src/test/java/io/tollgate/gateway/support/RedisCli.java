package io.tollgate.gateway.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code redis-cli} against a test Redis: how tests look at keys, TTLs and INFO commandstats. */
public final class RedisCli {

    private RedisCli() {
    }

    /** The output of {@code redis-cli -p <port> <args>}, trimmed. */
    public static String run(int port, String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli hung: " + command);
            }
            return out.strip();
        } catch (IOException e) {
            throw new IllegalStateException("redis-cli failed: " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Calls of {@code command} (lower case, e.g. {@code evalsha}) since start, from INFO commandstats. */
    public static long calls(int port, String command) {
        return commandStat(port, command, "calls");
    }

    /** Calls of {@code command} that answered an error (a script's too), from INFO commandstats. */
    public static long failedCalls(int port, String command) {
        return commandStat(port, command, "failed_calls");
    }

    private static long commandStat(int port, String command, String stat) {
        for (String line : run(port, "INFO", "commandstats").split("\n")) {
            String prefix = "cmdstat_" + command + ":";
            if (line.startsWith(prefix)) {
                for (String field : line.substring(prefix.length()).strip().split(",")) {
                    if (field.startsWith(stat + "=")) {
                        return Long.parseLong(field.substring(stat.length() + 1));
                    }
                }
            }
        }
        return 0;
    }

    /** A counter of INFO (e.g. {@code total_reads_processed}). */
    public static long info(int port, String field) {
        for (String line : run(port, "INFO", "all").split("\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).strip());
            }
        }
        throw new IllegalStateException("no " + field + " in INFO of port " + port);
    }

    /** The port of a {@code redis://127.0.0.1:<port>} address. */
    public static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }
}
