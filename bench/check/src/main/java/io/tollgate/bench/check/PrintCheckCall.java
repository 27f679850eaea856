package io.tollgate.bench.check;

import java.util.List;
import java.util.OptionalLong;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.CheckCall;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.CounterScripts;
import io.tollgate.counter.Policy;

/**
 * Prints what redis-benchmark needs to send the very call the benchmark's store sends, one item per line:
 * {@code script <path>} writes the script text to a file (for SCRIPT LOAD), {@code args <client-key>} the
 * EVALSHA arguments for that client key (SHA-1 first).
 */
public final class PrintCheckCall {

    private PrintCheckCall() {
    }

    public static void main(String[] args) throws Exception {
        CounterScripts.Script script = CounterScripts.check();
        if (args.length == 2 && args[0].equals("script")) {
            java.nio.file.Files.writeString(java.nio.file.Path.of(args[1]), script.text());
            return;
        }
        if (args.length != 2 || !args[0].equals("args")) {
            throw new IllegalArgumentException("usage: PrintCheckCall script <file> | args <client-key>");
        }
        CheckCall call = CheckCall.of(List.of(CounterKeys.key("bench.check", args[1])),
                List.of(new Policy(Algorithm.TOKEN_BUCKET, 1_000_000_000L, 1_000, 1_000_000_000L)), 1,
                OptionalLong.empty());
        System.out.println(script.sha1());
        call.evalArgs().forEach(System.out::println);
    }
}
