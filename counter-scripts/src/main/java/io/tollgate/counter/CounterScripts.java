package io.tollgate.counter;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The catalog of the Lua sent to Redis, the one place scripts live: {@code check}, assembled from the
 * algorithm files, the argument reader and the check driver under {@code counter-scripts/} on the class path;
 * {@code check_on_node}, the same behind a prelude that takes the keys of several slots of one Cluster node;
 * and {@code peek}, the same algorithms and arguments behind a read-only driver.
 * <p>
 * Run {@code main} to print the script text, so shell scripts can {@code SCRIPT LOAD} it.
 */
public final class CounterScripts {

    /**
     * The table the algorithm files fill and {@code arguments.lua} picks each key's {@code decide} from: a local,
     * as Redis forbids globals, built with one slot per {@link Algorithm} so filling it never resizes it (it is
     * rebuilt on every call). The slots the call's ARGV names (every fifth from the second, up to the last
     * key's) are marked {@code true} first, and each algorithm's code runs only when its slot is marked: Lua
     * builds every function it meets afresh on each call, so a call builds only its own algorithms'
     * ({@code bench/scripts/counter-scripts-instructions.sh} counts the instructions in Redis per check).
     * A name that is not an algorithm's stays absent, and {@code arguments.lua} answers it with its error.
     */
    private static final String ALGORITHM_SLOTS = Arrays.stream(Algorithm.values())
            .map(a -> a.wireName() + " = false")
            .collect(Collectors.joining(", ", "local ALGORITHMS = { ", " }\n"))
            + "for a = 2, 1 + 5 * #KEYS, 5 do if ALGORITHMS[ARGV[a]] == false then ALGORITHMS[ARGV[a]] = true end end\n";

    /**
     * How concurrency keys are read and written (a sorted set, not a value): locals that {@code concurrency.lua}
     * fills, and {@code arguments.lua} and {@code check.lua} call, when the call names that algorithm.
     */
    private static final String LEASE_STORE = "local read_leases, take_lease, renew_lease\n";

    private static final Script CHECK = assemble("check", "", "check.lua");
    private static final Script CHECK_ON_NODE = assemble("check_on_node", read("on_node.lua"), "check.lua");
    /** Redis refuses any write of a script flagged {@code no-writes}, and runs it on a replica or out of memory. */
    private static final Script PEEK = assemble("peek", "#!lua flags=no-writes\n", "peek.lua");

    /**
     * A script as Redis knows it.
     *
     * @param name
     * the catalog name
     * @param text
     * the Lua text sent by {@code SCRIPT LOAD} / {@code EVAL}
     * @param sha1
     * lowercase hex SHA-1 of the UTF-8 text, as {@code SCRIPT LOAD} answers and {@code EVALSHA} expects
     */
    public record Script(String name, String text, String sha1) {
    }

    private CounterScripts() {
    }

    /** The one script the gateway runs per check; see {@code check.lua} for KEYS, ARGV and the reply. */
    public static Script check() {
        return CHECK;
    }

    /**
     * The check of several clients whose keys live on one Redis Cluster node, in one call: the keys of the
     * first clients, of one slot, declared (they route the call), the others in ARGV, as
     * {@link CheckCall#evalArgsOnOneNode} lays them out; {@code on_node.lua} then runs {@code check.lua} over
     * all of them. Redis 7's {@code allow-cross-slot-keys} flag lets it use keys of several slots of its node.
     */
    public static Script checkOnNode() {
        return CHECK_ON_NODE;
    }

    /**
     * What buckets hold now, without spending or writing anything: the arguments of {@code check}
     * ({@link PeekCall} lays them out), a reply of three integers per key; see {@code peek.lua}.
     */
    public static Script peek() {
        return PEEK;
    }

    /**
     * Prints the text of {@code check} (or of the script the argument names: {@code check_on_node}, {@code peek})
     * to standard output, for {@code redis-cli SCRIPT LOAD "$(...)"}.
     */
    public static void main(String[] args) {
        String name = args.length > 0 ? args[0] : CHECK.name();
        Script script = Stream.of(CHECK, CHECK_ON_NODE, PEEK)
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no script named \"" + name + "\""));
        // the script itself is this tool's output, not a log line
        System.out.print(script.text());
        System.out.flush();
    }

    /**
     * {@code head} (a shebang must come first), the prelude: {@code fail}, which answers the errors of
     * {@code arguments.lua} with the script's name (written in here, so naming the script costs a call
     * nothing), the algorithm slots and the lease store's locals; each algorithm's file inside
     * {@code if ALGORITHMS.<name> then ... end}, {@code arguments.lua}, then the {@code driver}.
     */
    private static Script assemble(String name, String head, String driver) {
        StringBuilder text = new StringBuilder(head)
                .append("local function fail(message)\n")
                .append("  return redis.error_reply('ERR tollgate ").append(name).append(": ' .. message)\n")
                .append("end\n")
                .append(ALGORITHM_SLOTS)
                .append(LEASE_STORE);
        for (Algorithm algorithm : Algorithm.values()) {
            text.append("if ALGORITHMS.").append(algorithm.wireName()).append(" then\n")
                    .append(read(algorithm.wireName() + ".lua")).append("end\n");
        }
        String assembled = text.append(read("arguments.lua")).append(read(driver)).append('\n').toString();
        return new Script(name, assembled, sha1(assembled));
    }

    private static String read(String file) {
        String resource = "/counter-scripts/" + file;
        try (InputStream in = CounterScripts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing class-path resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}
