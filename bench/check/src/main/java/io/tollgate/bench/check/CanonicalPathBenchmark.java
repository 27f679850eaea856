package io.tollgate.bench.check;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import io.tollgate.rules.domain.CanonicalPath;

/**
 * What reading a request's path canonically adds to the gateway's work per request: {@code canonical} makes the
 * path canonical as the gateway does for every request ({@link CanonicalPath#of}); {@code given} is the same
 * request with the canonical path already given (a value carried along, nothing worked out).
 * Their difference is the CPU that canonicalisation adds. {@code path}: a typical path (already canonical, the
 * common case), and a respelled one that takes the slow path (escapes, a dot segment, {@code //}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CanonicalPathBenchmark {

    @Param({"/v1/orders/123", "/v1/%6Frders/./x/..//123"})
    String path;

    private String canonical;

    @org.openjdk.jmh.annotations.Setup
    public void setup() {
        canonical = CanonicalPath.of(path).path();
    }

    @Benchmark
    public CanonicalPath canonical() {
        return CanonicalPath.of(path);
    }

    @Benchmark
    public CanonicalPath given() {
        return new CanonicalPath(canonical, canonical, null);
    }
}
