package io.tollgate.gateway.limiter.pipeline;

import java.util.List;

import io.tollgate.gateway.limiter.decision.Outcome;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.vertx.core.Future;

/**
 * The stages a group's check passes through, in order; the last answers every group it gets (the store). Every
 * stage hears what the store said of a group's buckets once the check is answered, so what it remembers is the
 * answer the request got (after a lease took its share).
 */
public final class Pipeline {

    private final List<Stage> stages;
    /** {@code links[i]} passes a group on to stage i. */
    private final Link[] links;

    public Pipeline(List<Stage> stages) {
        this.stages = List.copyOf(stages);
        this.links = new Link[stages.size() + 1];
        for (int i = stages.size(); i >= 0; i--) {
            links[i] = new Link(i);
        }
    }

    /** {@code group}'s decisions, one per rule (fewer when answered from memory). */
    public Future<List<RuleDecision>> check(Group group) {
        return links[0].check(group).map(decisions -> {
            if (fromStore(decisions)) {
                heard(group, decisions);
            }
            return decisions;
        });
    }

    /** The first stage's refusal of a request checked in {@code groups} before any is asked; null when none. */
    public List<RuleDecision> refusal(List<Group> groups) {
        for (Stage stage : stages) {
            List<RuleDecision> refused = stage.refusal(groups);
            if (refused != null) {
                return refused;
            }
        }
        return null;
    }

    /** Whether {@code decisions} are the store's word on each bucket (not a lease's, memory's or the failure mode's). */
    public static boolean fromStore(List<RuleDecision> decisions) {
        for (RuleDecision d : decisions) {
            if (d.bucket() == null || d.outcome() == Outcome.LEASED) {
                return false;
            }
        }
        return !decisions.isEmpty();
    }

    private void heard(Group group, List<RuleDecision> decisions) {
        for (Stage stage : stages) {
            stage.heard(group, decisions);
        }
    }

    private final class Link implements Stage.Next {

        private final int index;

        Link(int index) {
            this.index = index;
        }

        @Override
        public Future<List<RuleDecision>> check(Group group) {
            if (index == stages.size()) {
                throw new IllegalStateException("the last stage of a pipeline answers every group");
            }
            return stages.get(index).check(group, links[index + 1]);
        }

        @Override
        public void heard(Group group, List<RuleDecision> decisions) {
            Pipeline.this.heard(group, decisions);
        }
    }
}
