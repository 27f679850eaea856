package io.tollgate.gateway.limiter;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.rules.LiveGateways;
import io.tollgate.rules.domain.MissingKey;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;

/**
 * Decides one request: resolves each matching rule's client key, groups the rules by client key (one
 * hash tag, one shard), answers remembered rejections from memory, and makes ONE store call per group,
 * all-or-nothing across that client's rules. Shadow rules are checked in a group of their own so their
 * rejections never cost an enforced rule its token. Answers on the caller's event loop.
 */
@ApplicationScoped
public class Limiter {

    private final KeyResolver keys;
    private final GuardedStore store;
    private final FailurePolicy failure;
    private final RejectionCache rejections = new RejectionCache(System::nanoTime);
    private final DecisionMetrics metrics;

    Limiter(KeyResolver keys, RateLimiter store, GatewayConfig config, LiveGateways live, DecisionMetrics metrics,
            MeterRegistry registry) {
        this.keys = keys;
        GatewayConfig.Breaker breaker = config.store().breaker();
        this.store = new GuardedStore(store, config.store().timeout(),
                new CircuitBreaker(breaker.window(), breaker.failureRate(), breaker.openFor().toNanos(),
                        System::nanoTime),
                registry);
        this.failure = new FailurePolicy(live, Clock.systemUTC());
        this.metrics = metrics;
    }

    /** The verdict on {@code request} under {@code rules} (the enabled rules that match it). */
    public Uni<Verdict> check(List<Rule> rules, HttpServerRequest request) {
        Map<GroupKey, Group> groups = new LinkedHashMap<>();
        for (Rule rule : rules) {
            Optional<String> client = keys.resolve(rule.key(), request);
            if (client.isEmpty()) {
                if (rule.missingKey() == MissingKey.REJECT) {
                    return Uni.createFrom().item(Verdict.missing(keys.missing(rule.key())));
                }
                continue;
            }
            groups.computeIfAbsent(new GroupKey(client.get(), rule.shadow()), k -> new Group(k.shadow()))
                    .add(rule, new Bucket(CounterKeys.key(rule.id(), client.get()), rule.policy()));
        }
        if (groups.isEmpty()) {
            return Uni.createFrom().item(Verdict.of(List.of()));
        }
        List<Uni<List<RuleDecision>>> checks = groups.values().stream().map(this::check).toList();
        Uni<List<RuleDecision>> all = checks.size() == 1
                ? checks.get(0)
                : Uni.join().all(checks).andFailFast().map(Limiter::flatten);
        return onCallerContext(all.map(Verdict::of).invoke(v -> v.decisions().forEach(metrics::count)));
    }

    private Uni<List<RuleDecision>> check(Group group) {
        if (!group.shadow) {
            List<RuleDecision> cached = cachedRejections(group);
            if (!cached.isEmpty()) {
                return Uni.createFrom().item(cached);
            }
        }
        return store.check(group.buckets)
                .map(decisions -> judged(group, decisions))
                .onFailure()
                .recoverWithItem(err -> failure.decide(group.rules, group.buckets, err));
    }

    /** The remembered rejections of this group; empty when none is remembered (then the store decides). */
    private List<RuleDecision> cachedRejections(Group group) {
        List<RuleDecision> out = new ArrayList<>(1);
        for (int i = 0; i < group.buckets.size(); i++) {
            long ms = rejections.remainingMs(group.buckets.get(i).key());
            if (ms > 0) {
                out.add(RuleDecision.of(group.rules.get(i), new Decision(false, 0, ms, ms), Outcome.CACHED_REJECTED));
            }
        }
        return out;
    }

    private List<RuleDecision> judged(Group group, List<Decision> decisions) {
        failure.storeAnswered();
        List<RuleDecision> out = new ArrayList<>(decisions.size());
        for (int i = 0; i < decisions.size(); i++) {
            Decision d = decisions.get(i);
            Outcome outcome;
            if (d.allowed()) {
                outcome = Outcome.ALLOWED;
            } else if (group.shadow) {
                outcome = Outcome.SHADOW_REJECTED;
            } else {
                outcome = Outcome.REJECTED;
                rejections.remember(group.buckets.get(i).key(), d.retryAfterMs());
            }
            out.add(RuleDecision.of(group.rules.get(i), d, outcome));
        }
        return out;
    }

    /** Store replies and timeouts arrive on other threads; the answer must be written on the request's loop. */
    private static <T> Uni<T> onCallerContext(Uni<T> uni) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return uni;
        }
        // Same thread (the pinned Redis connection and the timer live on the request's loop): no hop needed.
        Thread loop = Thread.currentThread();
        Executor back = task -> {
            if (Thread.currentThread() == loop) {
                task.run();
            } else {
                context.runOnContext(v -> task.run());
            }
        };
        return uni.emitOn(back);
    }

    private static List<RuleDecision> flatten(List<List<RuleDecision>> lists) {
        return lists.stream().flatMap(List::stream).toList();
    }

    private record GroupKey(String clientKey, boolean shadow) {
    }

    /** The rules of one client key, with their buckets in the same order. */
    private static final class Group {

        final boolean shadow;
        final List<Rule> rules = new ArrayList<>(2);
        final List<Bucket> buckets = new ArrayList<>(2);

        Group(boolean shadow) {
            this.shadow = shadow;
        }

        void add(Rule rule, Bucket bucket) {
            rules.add(rule);
            buckets.add(bucket);
        }
    }
}
