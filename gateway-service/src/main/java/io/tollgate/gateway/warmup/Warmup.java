package io.tollgate.gateway.warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.enterprise.inject.Instance;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServer;
import io.quarkus.vertx.http.HttpServerStart;
import io.tollgate.gateway.config.ConfigError;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.config.Loopback;
import io.tollgate.gateway.store.CounterStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * Warms the request path before the gateway reports ready (check {@code warmup}), so that the first real
 * burst is decided by the store, not by a {@code tollgate.store.timeout} that fires on the gateway's own cold
 * code: on a fresh gateway a request takes 10-60 ms (new connections, classes to load, code not compiled yet),
 * enough for its first checks to time out and the failure modes to decide.
 * <ol>
 * <li>{@link StoreChecks}: 20 checks on every event loop, straight to the store, so that each loop's pinned
 * Redis connection is open and the script loaded before any check is timed.</li>
 * <li>HTTP, once the server listens: {@code tollgate.warmup.requests} requests to the gateway's own port
 * ({@link SelfRequests}) through the whole path, rules, limiter (the real store, throwaway buckets), proxy,
 * to a {@link LoopbackTarget} started for the purpose and closed after, never to a backend
 * ({@link WarmupGate}).</li>
 * </ol>
 * Bounded by {@code tollgate.warmup.max-time} from when the gateway listens (from the start until then; a
 * readiness probe cannot reach it before): past it the gateway is ready whatever the warm-up got through, and
 * a store that cannot answer ends the store part at once (its failure modes answer from there).
 */
@Readiness
@ApplicationScoped
class Warmup implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(Warmup.class);
    /** Connections of the HTTP part per event loop: enough that a loop's checks go to the store together. */
    private static final int LANES_PER_LOOP = 8;

    private final WarmupConfig config;
    private final WarmupGate gate;
    private final Vertx vertx;
    private final CounterStore store;
    private final Instance<HttpServer> server;
    private final String apiKeyHeader;
    private final Counter reached;
    private final Promise<Integer> listening = Promise.promise();
    private final AtomicBoolean done = new AtomicBoolean();
    private volatile boolean pastBound;
    private long boundTimer = -1;
    private volatile SelfRequests requests;
    private long startNanos;

    Warmup(WarmupConfig config, WarmupGate gate, Vertx vertx, CounterStore store, Instance<HttpServer> server,
            GatewayConfig gateway, MeterRegistry registry) {
        if (config.requests() < 0) {
            throw ConfigError.of("tollgate.warmup.requests", config.requests(), "must be 0 (store checks only) or more");
        }
        if (config.maxTime().isNegative() || config.maxTime().isZero()) {
            throw ConfigError.of("tollgate.warmup.max-time", config.maxTime(), "must be longer than 0");
        }
        this.config = config;
        this.gate = gate;
        this.vertx = vertx;
        this.store = store;
        this.server = server;
        this.apiKeyHeader = gateway.gateway().apiKeyHeader();
        this.reached = Counter.builder("tollgate.warmup.requests")
                .description("requests of the start-up warm-up that reached its loopback target through the proxy")
                .register(registry);
    }

    void onStart(@Observes StartupEvent start) {
        startNanos = System.nanoTime();
        // getOrCreateContext off a Vert.x thread gives a new context on the next event loop, round robin
        List<Context> loops = new ArrayList<>();
        for (var ignored : vertx.nettyEventLoopGroup()) {
            loops.add(vertx.getOrCreateContext());
        }
        armBound("the start");
        Future<Void> stored = StoreChecks.run(store, loops).onFailure(err -> LOG.infof("warm-up: the store does not"
                + " answer (%s); checks follow the failure modes until it does", err.toString()));
        if (config.requests() == 0 || !httpEnabled()) {
            stored.onComplete(result -> finish(null));
            return;
        }
        // the HTTP part starts after the store part, answered or failed: its checks are timed, the store's are not
        Future.join(stored, listening.future()).onComplete(both -> {
            int port = listening.future().result();
            if (port <= 0) {
                finish("without HTTP requests: the HTTP server's port is unknown");
            } else if (!pastBound) {
                exercise(loops, port, stored.succeeded());
            }
        });
    }

    /** Fired once the HTTP server listens: its port is known from here on (the tests ask for port 0). */
    void onListening(@ObservesAsync HttpServerStart started) {
        armBound("the gateway listened");
        int port = server.isResolvable() ? server.get().getPort() : -1;
        listening.tryComplete(port > 0 ? port : started.options().getPort());
    }

    /** Past {@code tollgate.warmup.max-time} from now, the warm-up is over; an earlier bound no longer counts. */
    private synchronized void armBound(String since) {
        if (boundTimer >= 0) {
            vertx.cancelTimer(boundTimer);
        }
        long bound = config.maxTime().toMillis();
        boundTimer = vertx.setTimer(bound, t -> {
            pastBound = true;
            finish("not over " + bound + " ms after " + since + " (tollgate.warmup.max-time): ready anyway");
        });
    }

    private static boolean httpEnabled() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.http.host-enabled", Boolean.class).orElse(true);
    }

    /**
     * The HTTP part. When the store answered the store part, the warm-up waits for it to decide its checks again
     * whenever the failure mode decided one ({@link SelfRequests}): the circuit breaker is closed when it ends.
     */
    private void exercise(List<Context> loops, int port, boolean storeAnswered) {
        LoopbackTarget.start(vertx, reached).onComplete(started -> {
            if (started.failed()) {
                finish("without HTTP requests: no loopback target (" + started.cause() + ")");
                return;
            }
            LoopbackTarget target = started.result();
            int lanes = LANES_PER_LOOP * loops.size();
            SelfRequests self = new SelfRequests(vertx, loopbackHost(), port, gate.secret(), apiKeyHeader,
                    config.requests(), lanes, () -> pastBound, storeAnswered);
            requests = self;
            gate.open(target.url());
            self.run(loops, lanes)
                    .compose(drained -> self.clearRejection())
                    .onComplete(over -> {
                        // every request sent has its answer: none can reach the gateway after the gate closes
                        gate.close();
                        self.close();
                        target.close();
                        LOG.infof("warm-up: %d requests through the gateway in %d ms, %d proxied to its loopback"
                                + " target, %d answered 429, %d otherwise", self.answered(), elapsedMs(),
                                (long) reached.count(), self.rejected(), self.other());
                        finish(null);
                    });
        });
    }

    /** Where the gateway's own port is reached: its host, or loopback when it listens on every address. */
    private static String loopbackHost() {
        return Loopback.hostFor(
                ConfigProvider.getConfig().getOptionalValue("quarkus.http.host", String.class).orElse("0.0.0.0"));
    }

    private long elapsedMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** The warm-up is over: readiness may turn UP. {@code problem}, when not null, says why it ended early. */
    private void finish(String problem) {
        if (done.compareAndSet(false, true)) {
            if (problem == null) {
                LOG.debugf("warm-up over after %d ms", elapsedMs());
            } else {
                LOG.infof("warm-up %s", problem);
            }
        }
    }

    @Override
    public HealthCheckResponse call() {
        SelfRequests self = requests;
        return HealthCheckResponse.named("warmup")
                .status(done.get())
                .withData("requests", self == null ? 0 : self.answered())
                .withData("proxied", (long) reached.count())
                .build();
    }
}
