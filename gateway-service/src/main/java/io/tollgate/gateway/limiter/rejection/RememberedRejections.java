package io.tollgate.gateway.limiter.rejection;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.pipeline.Group;
import io.tollgate.gateway.limiter.pipeline.Pipeline;
import io.tollgate.gateway.limiter.pipeline.Stage;
import io.vertx.core.Future;

/**
 * The stage that answers a rejected bucket's requests from the {@link RejectionCache} until its retry time
 * (outcome {@code cached_rejected}), and remembers what the store says of each bucket. A shadow group and a group
 * the store decides alone ({@link Group#fresh}) pass on. An optimisation: {@code tollgate.rejections.remembered}
 * off, every request goes to the store.
 */
public final class RememberedRejections implements Stage {

    private final RejectionCache cache;

    public RememberedRejections(RejectionCache cache) {
        this.cache = cache;
    }

    @Override
    public Future<List<RuleDecision>> check(Group group, Next next) {
        if (group.shadow()) {
            return next.check(group);
        }
        if (!group.fresh()) {
            long[] waits = cache.admit(group.buckets());
            if (waits != null) {
                return Future.succeededFuture(cached(group, waits));
            }
        }
        return next.check(group).map(decisions -> {
            if (!Pipeline.fromStore(decisions)) {
                // this request may have been the probe of a bucket: its mark must not outlive it
                group.buckets().forEach(b -> cache.forget(b.key()));
            }
            return decisions;
        });
    }

    @Override
    public void heard(Group group, List<RuleDecision> decisions) {
        if (group.shadow()) {
            return;
        }
        for (RuleDecision rd : decisions) {
            Decision d = rd.decision();
            if (d.allowed()) {
                cache.allowed(rd.bucket(), d.remaining(), d.resetMs());
            } else {
                cache.rejected(rd.bucket(), d.retryAfterMs());
            }
        }
    }

    /**
     * The cached rejections of the first group this gateway remembers rejected. Groups a lease may answer and
     * shadow groups are left to their own check.
     */
    @Override
    public List<RuleDecision> refusal(List<Group> groups) {
        for (Group group : groups) {
            if (!group.shadow() && !group.leasable()) {
                long[] waits = cache.remembered(group.buckets());
                if (waits != null) {
                    return cached(group, waits);
                }
            }
        }
        return null;
    }

    /** The decisions of {@code group}'s buckets that {@code waits} (ms, 0 for none) keeps back. */
    private static List<RuleDecision> cached(Group group, long[] waits) {
        List<RuleDecision> out = new ArrayList<>(1);
        for (int i = 0; i < waits.length; i++) {
            if (waits[i] > 0) {
                out.add(RuleDecision.of(group.rules().get(i), group.effective().get(i),
                        new Decision(false, 0, waits[i], waits[i]), Outcome.CACHED_REJECTED));
            }
        }
        return out;
    }
}
