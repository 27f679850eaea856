package io.tollgate.gateway.limiter.guard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.gateway.sync.LiveGateways;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.FailureMode;
import io.tollgate.rules.domain.Rule;

/**
 * THE place that decides what a check does when the counter store cannot answer (error, no answer within
 * {@code tollgate.store.timeout}, or an open breaker), per rule's {@code failure_mode}:
 * <ul>
 * <li>{@code open}: allow. The limit is lost for the outage; availability wins for rules that say so.</li>
 * <li>{@code closed}: 503. For limits that protect something that must never be overrun.</li>
 * <li>{@code local}: enforce the same rule, at the client's effective policy (its plan's or override, else the
 * rule's own), in this process at limit ÷ live gateways (burst likewise, at least 1), all-or-nothing across the group like the
 * store would, and never beyond what the store last said of
 * that client ({@link FallbackBuckets}): the fleet as a whole stays within the limit without any shared
 * state, and a client the store just rejected stays rejected.</li>
 * </ul>
 * Shadow rules never reject, in fallback too. Entering and leaving fallback is logged once each.
 */
public final class FailurePolicy {

    private static final Logger LOG = Logger.getLogger(FailurePolicy.class);

    private final LiveGateways live;
    private final FallbackBuckets local;
    private final AtomicBoolean inFallback = new AtomicBoolean();

    public FailurePolicy(LiveGateways live, LongSupplier nanoClock) {
        this.live = live;
        this.local = new FallbackBuckets(nanoClock);
    }

    /**
     * The decisions for {@code rules} (with their {@code effective} policies and {@code buckets}) when the store
     * failed with {@code why}.
     */
    public List<RuleDecision> decide(List<Rule> rules, List<Effective> effective, List<Bucket> buckets, Throwable why) {
        if (inFallback.compareAndSet(false, true)) {
            LOG.warnf("counter store unavailable (%s): rules follow their failure mode until it answers", why.getMessage());
        }
        List<Integer> localIndexes = new ArrayList<>();
        RuleDecision[] out = new RuleDecision[rules.size()];
        for (int i = 0; i < rules.size(); i++) {
            Rule rule = rules.get(i);
            FailureMode mode = rule.shadow() ? FailureMode.OPEN : rule.failureMode();
            switch (mode) {
                case OPEN ->
                    out[i] = RuleDecision.of(rule, effective.get(i), new Decision(true, effective.get(i).burst(), 0, 0),
                            Outcome.FALLBACK_ALLOWED);
                case CLOSED -> out[i] = new RuleDecision(rule, new Decision(false, 0, 1000, 0), Outcome.FALLBACK_REJECTED,
                        true, effective.get(i));
                case LOCAL -> localIndexes.add(i);
            }
        }
        if (!localIndexes.isEmpty()) {
            decideLocally(rules, effective, buckets, localIndexes, out);
        }
        return List.of(out);
    }

    /** The store answered in time: leave fallback (logged once). */
    public void storeAnswered() {
        if (inFallback.get() && inFallback.compareAndSet(true, false)) {
            LOG.info("counter store answers again: rules are enforced by the shared store");
        }
    }

    /** The store's word on {@code bucket}, in an answer that arrived just now (in time or late). */
    public void heard(Bucket bucket, Decision decision) {
        local.heard(bucket, decision.remaining(), decision.resetMs());
    }

    private void decideLocally(List<Rule> rules, List<Effective> effective, List<Bucket> buckets, List<Integer> indexes,
            RuleDecision[] out) {
        List<Bucket> locals = new ArrayList<>(indexes.size());
        for (int i : indexes) {
            locals.add(buckets.get(i));
        }
        List<Decision> decisions = local.decide(locals, live.count());
        for (int j = 0; j < indexes.size(); j++) {
            Decision d = decisions.get(j);
            out[indexes.get(j)] = RuleDecision.of(rules.get(indexes.get(j)), effective.get(indexes.get(j)), d,
                    d.allowed() ? Outcome.FALLBACK_ALLOWED : Outcome.FALLBACK_REJECTED);
        }
    }

    /** This gateway's share of a policy: limit and burst ÷ live gateways, at least 1. */
    static Policy share(Policy policy, int gateways) {
        int n = Math.max(1, gateways);
        return new Policy(policy.algorithm(), Math.max(1, policy.limit() / n), policy.periodMs(),
                Math.max(1, policy.burst() / n), policy.cost(), policy.windowEndSecond(), policy.slotId());
    }
}
