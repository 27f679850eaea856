package io.tollgate.gateway.store;

import io.tollgate.counter.Policy;

/**
 * One bucket to check: a rule's policy for one client.
 *
 * @param key the store key, from {@code CounterKeys} (all buckets of one check share a client key)
 * @param policy what the bucket allows
 */
public record Bucket(String key, Policy policy) {
}
