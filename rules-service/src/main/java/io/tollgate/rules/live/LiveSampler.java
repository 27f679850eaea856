package io.tollgate.rules.live;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Future;

/**
 * Reads every live gateway that gave its management address, every {@code tollgate.live.step}, all at once:
 * {@code /q/metrics} (decision counters, store breaker, store errors) and {@code /q/health/ready}. The counters
 * become per-step decisions ({@link Deltas}), summed over the gateways into the {@link DecisionWindow}; the rest
 * becomes each gateway's {@link Health}. A gateway that does not answer in time is unreachable for that step and
 * adds nothing to it.
 * <p>
 * Every instance reads every gateway of the shared registry, whichever instance it polls: any instance answers
 * the live view for the whole fleet, with no samples to share. Two instances' windows differ only by when each
 * read and since when it runs; the cost is one read per gateway per step per instance.
 */
@ApplicationScoped
public class LiveSampler {

    private static final Logger LOG = Logger.getLogger(LiveSampler.class);

    /**
     * How a gateway was at the last read.
     *
     * @param reachable
     * its metrics answered
     * @param ready
     * its readiness answered 200; null when it did not answer
     * @param store
     * {@code up}, or {@code down} when its breaker is not closed or its store failed every call of the step; null
     * when unreachable
     * @param breaker
     * {@code closed}, {@code open} or {@code half_open}; null when unreachable
     */
    public record Health(boolean reachable, Boolean ready, String store, String breaker) {

        static final Health UNREACHABLE = new Health(false, null, null, null);
    }

    private final GatewayRegistry registry;
    private final GatewayCalls calls;
    private final Clock clock;
    private final long stepMs;
    private final DecisionWindow window;
    private final Map<String, Deltas> deltas = new ConcurrentHashMap<>();
    private final Map<String, Health> health = new ConcurrentHashMap<>();
    private volatile long sampledAtMs = -1;

    LiveSampler(GatewayRegistry registry, GatewayCalls calls, Clock clock, LiveConfig config) {
        this.registry = registry;
        this.calls = calls;
        this.clock = clock;
        this.stepMs = config.step().toMillis();
        if (stepMs <= 0 || config.window().toMillis() < stepMs) {
            throw new IllegalArgumentException("tollgate.live.step=" + config.step() + ", tollgate.live.window="
                    + config.window() + ": the step must be longer than 0 and the window at least one step");
        }
        this.window = new DecisionWindow((int) (config.window().toMillis() / stepMs));
    }

    @Scheduled(every = "${tollgate.live.step:10s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> scheduledSample() {
        return Uni.createFrom().completionStage(() -> sample().toCompletionStage());
    }

    /** Reads every live gateway with an address once, and adds the step to the window. */
    Future<Void> sample() {
        long atMs = clock.millis();
        return Future.fromCompletionStage(registry.addressed().subscribeAsCompletionStage())
                .compose(targets -> sample(atMs, targets));
    }

    private Future<Void> sample(long atMs, List<GatewayRegistry.Gateway> targets) {
        Set<String> ids = targets.stream().map(GatewayRegistry.Gateway::id).collect(Collectors.toSet());
        deltas.keySet().retainAll(ids);
        health.keySet().retainAll(ids);
        List<Future<Map<String, long[]>>> reads = new ArrayList<>(targets.size());
        for (GatewayRegistry.Gateway gateway : targets) {
            reads.add(read(gateway));
        }
        return Future.join(reads).transform(done -> {
            Map<String, long[]> step = new HashMap<>();
            reads.forEach(read -> DecisionWindow.addInto(step, read.result()));
            window.add(atMs, step);
            sampledAtMs = atMs;
            return Future.succeededFuture();
        });
    }

    /** One gateway's decisions during the step (none when it did not answer); notes its health. */
    private Future<Map<String, long[]>> read(GatewayRegistry.Gateway gateway) {
        Future<GatewayCalls.Answer> metrics = calls.get(gateway, "/q/metrics");
        Future<GatewayCalls.Answer> ready = calls.get(gateway, "/q/health/ready");
        return Future.join(metrics, ready).transform(done -> {
            Boolean isReady = ready.succeeded() ? ready.result().status() == 200 : null;
            if (metrics.failed() || metrics.result().status() != 200) {
                LOG.debugf("gateway %s at %s: metrics not read (%s)", gateway.id(), gateway.adminUrl(),
                        metrics.failed() ? metrics.cause().toString() : "status " + metrics.result().status());
                health.put(gateway.id(), Health.UNREACHABLE);
                return Future.succeededFuture(Map.of());
            }
            GatewayReading reading = GatewayReading.of(metrics.result().body().toString());
            Deltas.Step step = deltas.computeIfAbsent(gateway.id(), id -> new Deltas()).next(reading);
            boolean down = (reading.breaker() != null && !"closed".equals(reading.breaker())) || step.storeFailing();
            health.put(gateway.id(), new Health(true, isReady, down ? "down" : "up", reading.breaker()));
            return Future.succeededFuture(step.decisions());
        });
    }

    /** When the gateways were last read (epoch ms), -1 before the first read. */
    public long sampledAtMs() {
        return sampledAtMs;
    }

    public long stepMs() {
        return stepMs;
    }

    /** How gateway {@code id} was at the last read; unreachable when it was not read. */
    public Health health(String id) {
        return health.getOrDefault(id, Health.UNREACHABLE);
    }

    /** The decisions per rule over the window. */
    public List<DecisionWindow.RuleSeries> series() {
        return window.series();
    }
}
