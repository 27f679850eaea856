package io.tollgate.gateway.limiter.pipeline;

import java.util.List;

import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.vertx.core.Future;

/**
 * One step of a group's check: answers the group itself (from memory, or the store) or passes it on to the
 * stages after it. A check never fails: a store failure becomes the failure mode's decisions.
 */
public interface Stage {

    /** {@code group}'s decisions, one per rule (fewer when answered from memory): this stage's or {@code next}'s. */
    Future<List<RuleDecision>> check(Group group, Next next);

    /**
     * What the store said of each of {@code group}'s buckets ({@code decisions}, one per rule, as the request was
     * answered), in an answer that arrived just now, in time or late: what a stage remembers of the store's word.
     */
    default void heard(Group group, List<RuleDecision> decisions) {
    }

    /**
     * Of a request checked in several groups, the decisions that refuse it from this stage's memory before any
     * group is asked, so none of them spends; null when this stage refuses none of them.
     */
    default List<RuleDecision> refusal(List<Group> groups) {
        return null;
    }

    /** The stages after one. */
    interface Next {

        /** {@code group}'s decisions from the stages after this one. */
        Future<List<RuleDecision>> check(Group group);

        /** Tells every stage what the store said of {@code group}'s buckets ({@link Stage#heard}). */
        void heard(Group group, List<RuleDecision> decisions);
    }
}
