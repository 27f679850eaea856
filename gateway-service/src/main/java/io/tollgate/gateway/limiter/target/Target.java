package io.tollgate.gateway.limiter.target;

import io.tollgate.gateway.store.Bucket;
import io.tollgate.rules.domain.Effective;

/**
 * The policy a rule applies to a client and the bucket it counts in.
 *
 * @param tag the hash tag of the bucket (what its braces hold: a secret's digest, never the secret): the buckets of
 * one tag go to the store in one script call
 */
public record Target(Effective effective, Bucket bucket, String tag) {
}
