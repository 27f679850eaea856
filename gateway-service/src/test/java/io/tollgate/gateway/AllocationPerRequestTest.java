package io.tollgate.gateway;

import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.management.ThreadMXBean;

import io.netty.util.concurrent.EventExecutor;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tollgate.gateway.support.GatewayResource;
import io.vertx.core.Vertx;

/**
 * The heap a proxied request allocates in the gateway, a guard that does not depend on the machine's speed: a
 * change that adds per-request garbage fails here. The gateway serves every request on its Vert.x event loops, so
 * the figure is the sum of {@code ThreadMXBean.getThreadAllocatedBytes} over exactly those threads (asked of the
 * gateway's own Vert.x, not found by name: the test backend's Vert.x names its loops alike), before and after
 * {@value #MEASURED} requests, divided by their number. The requests come from a JDK {@code HttpClient} on threads
 * of the test's own, whose allocations are not counted; {@value #WARMUP} requests of the same kind go first, so the
 * JIT's escape analysis has run (a cold JVM allocates more per request). In blocks from a cold start, the first 250
 * requests allocated up to 4 % more each than requests 4,000-6,000, and requests 250-500 within 1.5 % of them, in
 * each case: twice that many is enough.
 * <p>
 * Measured on the 2-core build machine in four runs, one of which repeats each case three times on one JVM: a
 * plain proxied request (no rule matches) allocates 10.5-11.3 KB; a request checked by one token-bucket rule keyed
 * by {@code api_key} that never rejects, against Redis, 16.0-17.1 KB; the same over {@value #KEYS} distinct API
 * keys, 16.2-17.6 KB. Runs vary by up to 9 %. Each bound is about 1.5 × the highest figure plus 4 KB; 20 KB of
 * garbage more per request fails all three. The rules poll (once a second) runs on the same loops while the test
 * measures and is counted with the requests.
 * Speed figures stay in the benchmarks ({@code bench/gateway/limiter-overhead.sh}), never here.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store.timeout", value = "1s"))
class AllocationPerRequestTest {

    private static final Logger LOG = Logger.getLogger(AllocationPerRequestTest.class);
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int WARMUP = 500;
    private static final int MEASURED = 2000;
    /** Concurrent senders, each on its own keep-alive connection. */
    private static final int SENDERS = 4;
    /** The distinct API keys of the many-keys case. */
    private static final int KEYS = 1000;
    /** Below this, the threads measured are not the ones that served the requests. */
    private static final long SOME = 1024;

    @Inject
    Vertx vertx;

    @BeforeEach
    void oneRuleThatNeverRejects() {
        install("[" + rule("alloc.checked", "/alloc/checked/**", "api_key", 1_000_000, "1s", 1_000_000, "") + "]");
    }

    @Test
    void aPlainProxiedRequestAllocatesLessThan20Kb() throws Exception {
        assertThat(bytesPerRequest("/alloc/plain", n -> "alloc-one")).isBetween(SOME, 20_500L);
    }

    @Test
    void aCheckedRequestAllocatesLessThan30Kb() throws Exception {
        assertThat(bytesPerRequest("/alloc/checked/x", n -> "alloc-one")).isBetween(SOME, 30_000L);
    }

    @Test
    void aCheckedRequestAmongManyKeysAllocatesLessThan30Kb() throws Exception {
        assertThat(bytesPerRequest("/alloc/checked/x", n -> "alloc-" + n % KEYS)).isBetween(SOME, 30_000L);
    }

    /** Heap the gateway's event loops allocate per request to {@code path}, request n with the API key key(n). */
    private long bytesPerRequest(String path, IntFunction<String> key) throws Exception {
        long[] loops = eventLoops();
        send(path, key, WARMUP);
        long before = allocated(loops);
        send(path, key, MEASURED);
        long perRequest = (allocated(loops) - before) / MEASURED;
        LOG.infof("%s: %d bytes a request on %d event loops", path, perRequest, loops.length);
        return perRequest;
    }

    /** The ids of the gateway's event-loop threads, each asked on its own loop. */
    private long[] eventLoops() throws Exception {
        List<Long> ids = new ArrayList<>();
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            ids.add(loop.<Long>submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS));
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static long allocated(long[] threads) {
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(threads)) {
            sum += bytes;
        }
        return sum;
    }

    /** Sends {@code total} GETs of {@code path} over {@link #SENDERS} connections; each must be answered 200. */
    private static void send(String path, IntFunction<String> key, int total) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create(RestAssured.baseURI + ":" + RestAssured.port + path);
        AtomicInteger next = new AtomicInteger();
        ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                done.add(senders.submit(() -> {
                    for (int n = next.getAndIncrement(); n < total; n = next.getAndIncrement()) {
                        HttpRequest request = HttpRequest.newBuilder(uri).header("X-API-Key", key.apply(n)).build();
                        assertThat(http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode())
                                .as("answer to request %d of %s", n, path).isEqualTo(200);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            senders.shutdownNow();
        }
    }
}
