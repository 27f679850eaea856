package io.tollgate.bench.directory;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.gateway.clients.DirectoryClient;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Rule;

/**
 * What one request's rules cost the limiter for the client directory, in ns, as {@code limiter.Limiter} calls it:
 * {@code Directory.client} (the SHA-256 of the API key and the lookup, once a request), then per rule
 * {@code DirectoryClient.effective} (the policy, worked out ahead), {@code tag} and {@code bucketKey}. {@code rule*}: the
 * same calls on an empty directory, which skips the digest and lookup and gives every key the rule's own policy:
 * the rule-only path. {@code directory*}: {@code clients} generated clients ({@link Generated}), requests over
 * {@link #KEYS} of them, in random order. {@code *OneRule}: one rule keyed {@code api_key}; {@code *TwoRules}: it
 * and one keyed {@code tenant}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DirectoryBenchmark {

    static final int KEYS = 10_000;
    static final int PAGE = 10_000;

    @Param({ "1000000" })
    int clients;

    private Directory empty;
    private Directory full;
    private String[] keys;
    private int next;

    @Setup(Level.Trial)
    public void load() {
        empty = new Directory(new SimpleMeterRegistry());
        full = new Directory(new SimpleMeterRegistry());
        for (int p = 0; p < Generated.pages(PAGE, clients); p++) {
            full.apply(Generated.page(p, PAGE, clients));
        }
        Random random = new Random(11);
        keys = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = Generated.key(random.nextInt(clients));
        }
    }

    @Benchmark
    public void ruleOneRule(Blackhole bh) {
        oneRule(empty, bh);
    }

    @Benchmark
    public void directoryOneRule(Blackhole bh) {
        oneRule(full, bh);
    }

    @Benchmark
    public void ruleTwoRules(Blackhole bh) {
        twoRules(empty, bh);
    }

    @Benchmark
    public void directoryTwoRules(Blackhole bh) {
        twoRules(full, bh);
    }

    private void oneRule(Directory directory, Blackhole bh) {
        DirectoryClient caller = directory.client(nextKey());
        apply(caller, Generated.BY_KEY, bh);
    }

    private void twoRules(Directory directory, Blackhole bh) {
        DirectoryClient caller = directory.client(nextKey());
        apply(caller, Generated.BY_KEY, bh);
        apply(caller, Generated.BY_TENANT, bh);
    }

    private static void apply(DirectoryClient caller, Rule rule, Blackhole bh) {
        Effective effective = caller.effective(rule);
        bh.consume(effective.policy());
        bh.consume(caller.tag());
        bh.consume(caller.bucketKey(rule));
    }

    private String nextKey() {
        int i = next;
        next = i + 1 == KEYS ? 0 : i + 1;
        return keys[i];
    }
}
