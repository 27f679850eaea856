package io.tollgate.gateway.limiter.target;

import java.util.List;

import io.tollgate.counter.CounterKeys;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.pipeline.Group;

/**
 * What a request asks of its rules' buckets ({@link Targets#asks}).
 *
 * @param missing the verdict on a request without the client key a rule requires ({@code missing_key: reject}),
 * answered at once; null otherwise
 * @param groups the buckets to check, by hash tag, enforced and shadow apart
 * @param blocked the decisions of rules whose policy for the client has limit 0: no store call
 * @param blockedClients the client key of each of {@code blocked}, in the same order
 */
public record Asks(Verdict missing, List<Group> groups, List<RuleDecision> blocked,
        List<CounterKeys.Client> blockedClients) {

    /** Whether a rule of limit 0 refuses the request (a shadow rule's does not). */
    public boolean refusedByBlocked() {
        for (RuleDecision d : blocked) {
            if (!d.outcome().passes()) {
                return true;
            }
        }
        return false;
    }
}
