package io.tollgate.gateway.limiter.guard;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.counter.Algorithm;
import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.decision.DecisionMetrics;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.pipeline.Group;
import io.tollgate.gateway.limiter.pipeline.Stage;
import io.tollgate.gateway.store.Bucket;
import io.vertx.core.Future;

/**
 * The last stage: one call of the {@link GuardedStore} for the group's buckets (or what an earlier stage asks
 * instead), all or nothing. When the store cannot answer, the rules' failure modes decide ({@link FailurePolicy});
 * when its answer comes after all, every stage hears it, a {@code concurrency} slot it took goes back, and a
 * rejection the failure mode let through is counted as an over-admission.
 */
public final class StoreCheck implements Stage {

    private final GuardedStore store;
    private final FailurePolicy failure;
    private final DecisionMetrics metrics;

    public StoreCheck(GuardedStore store, FailurePolicy failure, DecisionMetrics metrics) {
        this.store = store;
        this.failure = failure;
        this.metrics = metrics;
    }

    @Override
    public Future<List<RuleDecision>> check(Group group, Next next) {
        return store.check(group.asked()).transform(result -> Future.succeededFuture(result.succeeded()
                ? answered(group, result.result())
                : failedOver(group, result.cause(), next)));
    }

    /** The fallback buckets of the failure mode {@code local} follow the store's word. */
    @Override
    public void heard(Group group, List<RuleDecision> decisions) {
        if (group.shadow()) {
            return;
        }
        for (RuleDecision d : decisions) {
            failure.heard(d.bucket(), d.decision());
        }
    }

    /** The store's decision of each of {@code group}'s buckets. */
    private List<RuleDecision> answered(Group group, List<Decision> said) {
        failure.storeAnswered();
        return decisions(group, said);
    }

    private static List<RuleDecision> decisions(Group group, List<Decision> said) {
        List<RuleDecision> out = new ArrayList<>(said.size());
        for (int i = 0; i < said.size(); i++) {
            Decision d = said.get(i);
            Outcome outcome = d.allowed()
                    ? Outcome.ALLOWED
                    : group.shadow() ? Outcome.SHADOW_REJECTED : Outcome.REJECTED;
            out.add(new RuleDecision(group.rules().get(i), d, outcome, false, group.effective().get(i),
                    group.buckets().get(i), group.tag()));
        }
        return out;
    }

    private List<RuleDecision> failedOver(Group group, Throwable why, Next next) {
        List<RuleDecision> decided = failure.decide(group.rules(), group.effective(), group.buckets(), why);
        if (!group.shadow() && why instanceof GuardedStore.TimedOut slow) {
            slow.late().onSuccess(said -> answeredLate(group, decided, said, next));
        }
        return decided;
    }

    /**
     * The store's answer to a check the failure mode already decided: every stage hears it as any answer, and when
     * the store rejected a request the failure mode let through, that is an over-admission, counted per rejecting
     * rule.
     */
    private void answeredLate(Group group, List<RuleDecision> decided, List<Decision> said, Next next) {
        next.heard(group, decisions(group, said));
        giveBackLateSlots(group, said);
        for (RuleDecision d : decided) {
            if (!d.outcome().passes()) {
                return;
            }
        }
        for (int i = 0; i < said.size(); i++) {
            if (!said.get(i).allowed()) {
                metrics.overadmitted(group.rules().get(i));
            }
        }
    }

    /**
     * The {@code concurrency} slots a late answer says the store took: the failure mode decided the request without
     * them, so no exchange holds them, and each goes back now rather than being held for its time.
     */
    private void giveBackLateSlots(Group group, List<Decision> said) {
        for (int i = 0; i < said.size(); i++) {
            Bucket bucket = group.buckets().get(i);
            if (said.get(i).allowed() && bucket.policy().algorithm() == Algorithm.CONCURRENCY) {
                store.releaseSlot(bucket);
            }
        }
    }
}
