package io.tollgate.gateway.limiter.rejection;

import io.tollgate.counter.CounterKeys;

/**
 * Told of every request the limiter rejects, by the store, from its memory of a rejection, by a policy of limit 0
 * or by the failure mode (outcomes {@code rejected}, {@code cached_rejected}, {@code blocked} and
 * {@code fallback_rejected}), with the client key the rule counted it under (as its buckets
 * carry it: a secret only as its digest). Called on the request's thread: an implementation must be cheap and must
 * not block.
 */
public interface RejectedClients {

    /** {@code client} was rejected under the rule {@code ruleId}. */
    void rejected(String ruleId, CounterKeys.Client client);
}
