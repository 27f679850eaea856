package io.tollgate.gateway.limiter.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.guard.CircuitBreaker;
import io.tollgate.gateway.limiter.guard.GuardedStore;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.store.CounterStore;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * A request's concurrency slot, renewed every third of its 300 ms while its exchange is live, and given back once: by the
 * first renewal that finds the exchange over when no end came, and never again by an end or a cancel after it.
 */
class SlotRenewalTest {

    private static final Bucket SLOT = new Bucket("rl:slots:{k}", Policy.slot(2, 300, 7));

    private final Vertx vertx = Vertx.vertx();
    /** The request's event loop: the settlement's timer and every call of it run there. */
    private final Context loop = vertx.getOrCreateContext();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicInteger renewed = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();
    private final Settlements settlements = new Settlements(new GuardedStore(new CounterStore() {

        @Override
        public Future<List<Decision>> check(List<Bucket> buckets) {
            throw new UnsupportedOperationException("no check here");
        }

        @Override
        public Future<Void> releaseSlot(Bucket bucket) {
            released.incrementAndGet();
            return Future.succeededFuture();
        }

        @Override
        public Future<Void> renewSlot(Bucket bucket) {
            renewed.incrementAndGet();
            return Future.succeededFuture();
        }
    }, vertx, Duration.ofSeconds(1), Duration.ofSeconds(5),
            new CircuitBreaker(10, 0.6, TimeUnit.SECONDS.toNanos(60), System::nanoTime), registry), vertx, 1_000_000,
            1_000_000, registry);

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aRenewalThatFindsTheExchangeOverGivesTheSlotBackOnceAndRenewsNoMore() throws Exception {
        AtomicBoolean live = new AtomicBoolean(true);
        Settlement settlement = open(live);
        await("renewed while live").atMost(Duration.ofSeconds(5)).until(() -> renewed.get() >= 2);
        assertThat(released.get()).isZero();

        live.set(false); // the exchange ended, and nothing told the settlement
        await("given back by the next renewal").atMost(Duration.ofSeconds(5)).until(() -> released.get() == 1);
        int renewals = renewed.get();
        // an end that comes later (an answer read on for its usage) gives nothing back twice
        onLoop(() -> {
            settlement.ended(false);
            settlement.cancel();
        });
        await("no renewal after").during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
                .until(() -> renewed.get() == renewals && released.get() == 1);
    }

    @Test
    void anEndCalledAgainAndACancelAfterItGiveTheSlotBackOnce() throws Exception {
        Settlement settlement = open(new AtomicBoolean(true));
        onLoop(() -> {
            settlement.ended(true);
            settlement.ended(false);
            settlement.cancel();
        });
        int renewals = renewed.get();
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
                .until(() -> released.get() == 1 && renewed.get() == renewals);
    }

    /** A settlement of one request's slot of {@link #SLOT}, opened on an event loop, renewed while {@code live}. */
    private Settlement open(AtomicBoolean live) throws Exception {
        Rule rule = Rule.of("slots", "/**", KeySpec.API_KEY, 2, Duration.ofMinutes(1));
        Verdict verdict = Verdict.of(List.of(new RuleDecision(rule, new Decision(true, 1, 0, 0), Outcome.ALLOWED,
                false, Effective.of(rule), SLOT, "k")));
        CompletableFuture<Settlement> opened = new CompletableFuture<>();
        loop.runOnContext(v -> opened.complete(settlements.open(verdict, live::get)));
        return opened.get(5, TimeUnit.SECONDS);
    }

    private void onLoop(Runnable action) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.runOnContext(v -> {
            action.run();
            done.complete(null);
        });
        done.get(5, TimeUnit.SECONDS);
    }
}
