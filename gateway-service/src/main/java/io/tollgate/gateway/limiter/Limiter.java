package io.tollgate.gateway.limiter;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.tollgate.counter.CounterKeys;
import io.tollgate.gateway.limiter.decision.DecisionMetrics;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.pipeline.Group;
import io.tollgate.gateway.limiter.pipeline.Pipeline;
import io.tollgate.gateway.limiter.rejection.RejectedClients;
import io.tollgate.gateway.limiter.rejection.RejectionCache;
import io.tollgate.gateway.limiter.settlement.Settlement;
import io.tollgate.gateway.limiter.settlement.Settlements;
import io.tollgate.gateway.limiter.targets.Asks;
import io.tollgate.gateway.limiter.targets.Target;
import io.tollgate.gateway.limiter.targets.Targets;
import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;

/**
 * Decides one request. {@link Targets} turns it and its rules into groups of buckets (one per hash tag); each
 * group goes through the {@link Pipeline} of stages (token leases, remembered rejections, the store behind its
 * guard with the failure mode), and the verdict is all of their decisions. A rule whose policy for the client has
 * limit 0 rejects at once, with no store call; a request of several groups that a stage refuses from memory asks
 * none of them; when one group refuses, what the others spent goes back. The answer completes on whichever thread
 * the store answered on (the request's own loop, with the pinned Redis connection); the HTTP edge writes it there.
 */
public class Limiter {

    private final Targets targets;
    private final Pipeline pipeline;
    private final RejectionCache rejections;
    private final DecisionMetrics metrics;
    private final RejectedClients rejectedClients;
    private final Settlements settlements;

    /** Built by {@link LimiterWiring}. */
    Limiter(Targets targets, Pipeline pipeline, RejectionCache rejections, DecisionMetrics metrics,
            RejectedClients rejectedClients, Settlements settlements) {
        this.targets = targets;
        this.pipeline = pipeline;
        this.rejections = rejections;
        this.metrics = metrics;
        this.rejectedClients = rejectedClients;
        this.settlements = settlements;
    }

    /** The verdict on {@code request} under {@code rules} (the enabled rules that match it). */
    public Future<Verdict> check(List<Rule> rules, HttpServerRequest request) {
        Asks asks = targets.asks(rules, request);
        if (asks.missing() != null) {
            return Future.succeededFuture(asks.missing());
        }
        List<RuleDecision> blocked = asks.blocked();
        if (asks.refusedByBlocked()) {
            reportRejected(blocked, asks.blockedClients());
            return Future.succeededFuture(verdict(blocked)); // no store call: nothing is spent
        }
        List<Group> groups = asks.groups();
        if (groups.isEmpty()) {
            return Future.succeededFuture(verdict(blocked));
        }
        if (groups.size() == 1 && blocked.isEmpty()) {
            Group group = groups.get(0);
            return pipeline.check(group).map(decisions -> verdict(reportRejected(group, decisions)));
        }
        List<RuleDecision> refused = pipeline.refusal(groups);
        if (refused != null) {
            // refused whatever the other groups would say: none of them is asked, so none spends
            for (Group group : groups) {
                reportRejected(group, refused);
            }
            List<RuleDecision> decisions = new ArrayList<>(blocked);
            decisions.addAll(refused);
            return Future.succeededFuture(verdict(decisions));
        }
        List<Future<List<RuleDecision>>> checks = new ArrayList<>(groups.size());
        for (Group group : groups) {
            checks.add(pipeline.check(group).map(decisions -> reportRejected(group, decisions)));
        }
        // a group's check never fails (store failures become fallback decisions), so all() waits for each
        return Future.all(checks).map(all -> {
            List<RuleDecision> decisions = new ArrayList<>(rules.size());
            decisions.addAll(blocked);
            for (Future<List<RuleDecision>> check : checks) {
                decisions.addAll(check.result());
            }
            Verdict verdict = verdict(decisions);
            if (!verdict.allowed()) {
                // each group is all or nothing on its own: what the others spent goes back
                settlements.giveBack(decisions);
            }
            return verdict;
        });
    }

    /**
     * What the request of {@code verdict} owes the store once its answer ends: settlements and concurrency slots;
     * null when nothing (most requests). Its slots are renewed only while {@code live} says its exchange is.
     */
    public Settlement settlementOf(Verdict verdict, BooleanSupplier live) {
        return settlements.open(verdict, live);
    }

    /**
     * What {@code rule} counts a request of client key {@code value} (as sent: an API key, a header's value, an
     * address) by: its effective policy, its bucket and the hash tag the bucket is stored under; as a check of
     * that request would. Reads the directory only: no store call.
     */
    public Target target(Rule rule, String value) {
        return targets.target(rule, value);
    }

    /**
     * Forgets what this gateway remembers of {@code bucket}'s rejections (its bucket was reset): its next request
     * goes to the store. Other gateways keep what they remember until its retry time.
     */
    public void forgetRejection(Bucket bucket) {
        rejections.forget(bucket.key());
    }

    /** Tells top of the rejections among {@code group}'s {@code decisions}, each under its rule's client key. */
    private List<RuleDecision> reportRejected(Group group, List<RuleDecision> decisions) {
        for (RuleDecision d : decisions) {
            if (!d.outcome().passes() && DecisionMetrics.counted(d.rule())) {
                int i = indexOf(group.rules(), d.rule());
                if (i >= 0) {
                    rejectedClients.rejected(d.rule().id(), group.clients().get(i));
                }
            }
        }
        return decisions;
    }

    /** The index of {@code rule} (the same object) in {@code rules}, or -1: no record comparison field by field. */
    private static int indexOf(List<Rule> rules, Rule rule) {
        for (int i = 0; i < rules.size(); i++) {
            if (rules.get(i) == rule) {
                return i;
            }
        }
        return -1;
    }

    /** The clients of a request that policies of limit 0 refused: each 429 is a rejection as any other. */
    private void reportRejected(List<RuleDecision> blocked, List<CounterKeys.Client> clients) {
        for (int i = 0; i < blocked.size(); i++) {
            RuleDecision d = blocked.get(i);
            if (!d.outcome().passes() && DecisionMetrics.counted(d.rule())) {
                rejectedClients.rejected(d.rule().id(), clients.get(i));
            }
        }
    }

    private Verdict verdict(List<RuleDecision> decisions) {
        for (RuleDecision decision : decisions) {
            metrics.count(decision);
        }
        return Verdict.of(decisions);
    }
}
