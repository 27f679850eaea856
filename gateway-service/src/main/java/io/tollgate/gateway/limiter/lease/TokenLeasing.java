package io.tollgate.gateway.limiter.lease;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.tollgate.counter.Decision;
import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.pipeline.Group;
import io.tollgate.gateway.limiter.pipeline.Pipeline;
import io.tollgate.gateway.limiter.pipeline.Stage;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Future;

/**
 * The stage that answers a group from this gateway's token {@link Leases} when it holds one for each of its buckets
 * (outcome {@code leased}, no store call), and otherwise lets the store call take a lease of a busy client's
 * bucket when the planner says so. It comes before the remembered rejections: a lease's last tokens leave the
 * store's bucket below a request. An optimisation: {@code tollgate.leases.enabled} off, every request of every rule
 * is checked in the store.
 */
public final class TokenLeasing implements Stage {

    private final Leases leases;

    public TokenLeasing(Leases leases) {
        this.leases = leases;
    }

    /**
     * Whether a bucket of {@code rule} may be answered from a lease: shadow rules, rules with {@code "lease": "off"},
     * calendar windows and algorithms other than token bucket and GCRA never lease.
     */
    public static boolean leasable(Rule rule, Bucket bucket) {
        return !rule.shadow() && rule.leases() && rule.calendar() == null && LeasePlanner.leasable(bucket.policy());
    }

    @Override
    public Future<List<RuleDecision>> check(Group group, Next next) {
        if (!group.leasable()) {
            return next.check(group);
        }
        Leases.Seen seen = new Leases.Seen(group.buckets().size());
        Decision[] leased = leases.admit(group.rules(), group.buckets(), seen);
        if (leased != null) {
            return Future.succeededFuture(leased(group, leased));
        }
        Bucket[] asked = leases.plan(group.rules(), group.buckets(), seen);
        if (asked == null) {
            // the store's word sizes the next lease
            return next.check(group).map(decisions -> answered(group, null, decisions, seen));
        }
        return next.check(group.asking(Arrays.asList(asked))).compose(said -> {
            if (!Pipeline.fromStore(said)) {
                leases.unanswered(group.buckets(), asked, seen);
                return Future.succeededFuture(said);
            }
            for (RuleDecision d : said) {
                if (!d.decision().allowed()) {
                    // another gateway spent meanwhile: nothing was spent, and the request is checked alone
                    leases.unanswered(group.buckets(), asked, seen);
                    return next.check(group.asking(group.buckets()))
                            .map(alone -> answered(group, null, alone, seen));
                }
            }
            return Future.succeededFuture(answered(group, asked, said, seen));
        });
    }

    /**
     * The store's answer to a check that asked {@code asked} (null: the buckets themselves), recorded by the
     * leases; each granted lease's decision is the request's, already spent from it.
     */
    private List<RuleDecision> answered(Group group, Bucket[] asked, List<RuleDecision> said, Leases.Seen seen) {
        if (!Pipeline.fromStore(said)) {
            return said;
        }
        List<Decision> store = new ArrayList<>(said.size());
        for (RuleDecision d : said) {
            store.add(d.decision());
        }
        List<Decision> answer = leases.answered(group.rules(), group.buckets(), asked, store, seen);
        if (answer == store) {
            return said;
        }
        List<RuleDecision> out = new ArrayList<>(said.size());
        for (int i = 0; i < said.size(); i++) {
            RuleDecision d = said.get(i);
            out.add(new RuleDecision(d.rule(), answer.get(i), d.outcome(), d.unavailable(), d.effective(), d.bucket(),
                    d.tag()));
        }
        return out;
    }

    /** The decisions of a request admitted from this gateway's leases of each of {@code group}'s buckets. */
    private static List<RuleDecision> leased(Group group, Decision[] decisions) {
        List<RuleDecision> out = new ArrayList<>(decisions.length);
        for (int i = 0; i < decisions.length; i++) {
            out.add(new RuleDecision(group.rules().get(i), decisions[i], Outcome.LEASED, false,
                    group.effective().get(i), group.buckets().get(i), group.tag()));
        }
        return out;
    }
}
